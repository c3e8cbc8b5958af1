// A software WebAuthn authenticator for integration tests: a real P-256 key pair that makes real
// registration ("none" attestation) and sign-in answers, byte for byte as a platform authenticator
// would, so the server's library verifies them for real (nothing of it is mocked). The browser's
// own virtual authenticator drives the end-to-end spec (tests/e2e/passkeys.spec.ts). The benchmark
// signs in with it too (bench/passkey.mjs), importing this file with Node's own type stripping: so
// only erasable TypeScript here (no parameter properties, enums or namespaces).
import crypto from "node:crypto";
import { isoCBOR } from "@simplewebauthn/server/helpers";

const b64 = (bytes: Uint8Array | Buffer) => Buffer.from(bytes).toString("base64url");
const sha256 = (data: Uint8Array | string) => crypto.createHash("sha256").update(data).digest();

const UP = 0x01;
const UV = 0x04;
const AT = 0x40;

function counterBytes(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n);
  return b;
}

export class SoftAuthenticator {
  readonly credentialId = crypto.randomBytes(16);
  private readonly keys = crypto.generateKeyPairSync("ec", { namedCurve: "P-256" });
  counter = 0;
  /** the page's origin the browser would write into clientDataJSON */
  origin: string;
  rpId: string;

  constructor(origin: string, rpId = new URL(origin).hostname) {
    this.origin = origin;
    this.rpId = rpId;
  }

  get id(): string {
    return b64(this.credentialId);
  }

  private coseKey(): Uint8Array {
    const jwk = this.keys.publicKey.export({ format: "jwk" });
    const x = new Uint8Array(Buffer.from(jwk.x!, "base64url"));
    const y = new Uint8Array(Buffer.from(jwk.y!, "base64url"));
    return isoCBOR.encode(
      new Map<number, number | Uint8Array>([
        [1, 2],
        [3, -7],
        [-1, 1],
        [-2, x],
        [-3, y],
      ]),
    );
  }

  private clientData(type: string, challenge: string, origin: string): Buffer {
    return Buffer.from(JSON.stringify({ type, challenge, origin, crossOrigin: false }));
  }

  /** The answer to registration options `{ challenge }`. */
  register(options: { challenge: string }, origin = this.origin) {
    const credId = this.credentialId;
    const idLength = Buffer.alloc(2);
    idLength.writeUInt16BE(credId.length);
    const authData = Buffer.concat([
      sha256(this.rpId),
      Buffer.from([UP | UV | AT]),
      counterBytes(this.counter),
      Buffer.alloc(16), // AAGUID: none
      idLength,
      credId,
      Buffer.from(this.coseKey()),
    ]);
    const attestationObject = isoCBOR.encode(
      new Map<string, string | Uint8Array | Map<string, string>>([
        ["fmt", "none"],
        ["attStmt", new Map<string, string>()],
        ["authData", new Uint8Array(authData)],
      ]),
    );
    return {
      id: this.id,
      rawId: this.id,
      type: "public-key" as const,
      response: {
        clientDataJSON: b64(this.clientData("webauthn.create", options.challenge, origin)),
        attestationObject: b64(attestationObject),
        transports: ["internal" as const],
      },
      clientExtensionResults: {},
    };
  }

  /** The answer to sign-in options `{ challenge }`; the counter goes up by one first (or is `counter`). */
  signIn(options: { challenge: string }, { origin = this.origin, counter = this.counter + 1 } = {}) {
    this.counter = Math.max(this.counter, counter);
    const authData = Buffer.concat([sha256(this.rpId), Buffer.from([UP | UV]), counterBytes(counter)]);
    const clientDataJSON = this.clientData("webauthn.get", options.challenge, origin);
    const signature = crypto.sign("sha256", Buffer.concat([authData, sha256(clientDataJSON)]), this.keys.privateKey);
    return {
      id: this.id,
      rawId: this.id,
      type: "public-key" as const,
      response: {
        clientDataJSON: b64(clientDataJSON),
        authenticatorData: b64(authData),
        signature: b64(signature),
      },
      clientExtensionResults: {},
    };
  }
}
