import { db, nowIso, writeTransaction } from "~/lib/db.server";
import { hashPassword } from "~/lib/password.server";
import { uploadFromBuffer } from "~/images/multipart.server";
import { loadSharp } from "~/images/sharp.server";
import {
  deleteImageFiles,
  insertImageRow,
  storeImage,
  type ImageKind,
  type StoredImage,
} from "~/images/storage.server";
import { insertComment } from "~/models/comments.server";
import { insertFriendship, type FriendshipStatus } from "~/models/friendships.server";
import { insertKid } from "~/models/kids.server";
import { insertLike } from "~/models/likes.server";
import { insertMoment } from "~/models/moment-changes.server";
import { setUserImage } from "~/models/profile-pictures.server";
import { insertUser, removeDemoAccounts } from "~/models/users.server";
import type { Relationship } from "~/forms/kid";

// Demo data that makes the product look alive. Every account here is flagged `is_demo`, so
// re-seeding replaces exactly these accounts (and everything that hangs off them) and never
// touches anyone else's. With DEMO off, demo accounts cannot log in.
//
// Photos are drawn here (SVG rendered by sharp; nothing is downloaded) and stored through the real
// upload pipeline (storeImage: checks, metadata stripped, WebP derivatives, placeholder), each row
// with its own images record and files, so deleting one never breaks another. A handful of
// pictures are drawn once and their bytes reused. Files are written before the transaction (the
// pool has one connection, and processing takes a while); the rows are inserted inside it.
//
// An entry point (db/seed, docs/decisions/0013-layers.md): it writes through the domain modules,
// with the row helpers they export for a caller's transaction (removeDemoAccounts, insertUser,
// setUserImage, insertKid, insertMoment, insertFriendship, insertLike, insertComment, and the image
// storage's insertImageRow). Their create functions are not used: each checks access and opens its
// own transaction (processing its photo first), which the seed's one transaction cannot share.

type SeedUser = { key: string; email: string; username: string; first: string; last: string };

const USERS: SeedUser[] = [
  { key: "demo", email: "demo@aa.io", username: "Demo", first: "Demo", last: "User" },
  { key: "marnie", email: "marnie@aa.io", username: "marnie", first: "Marnie", last: "Keller" },
  { key: "bobbie", email: "bobbie@aa.io", username: "bobbie", first: "Bobbie", last: "Santos" },
  { key: "ana", email: "ana@aa.io", username: "ana_r", first: "Ana", last: "Ruiz" },
  { key: "tom", email: "tom@aa.io", username: "tommy", first: "Tom", last: "Baker" },
  { key: "lee", email: "lee@aa.io", username: "leeh", first: "Lee", last: "Huang" },
  { key: "priya", email: "priya@aa.io", username: "priya", first: "Priya", last: "Nair" },
  { key: "olu", email: "olu@aa.io", username: "olu", first: "Olu", last: "Adeyemi" },
];

type SeedKid = { owner: string; name: string; birth: string; relationship: Relationship };
const KIDS: SeedKid[] = [
  { owner: "demo", name: "Elsa", birth: "2019-03-14", relationship: "Mom" },
  { owner: "demo", name: "Leo", birth: "2021-08-02", relationship: "Mom" },
  { owner: "demo", name: "Mia", birth: "2024-02-29", relationship: "Mom" },
  { owner: "marnie", name: "Noah", birth: "2018-11-20", relationship: "Dad" },
  { owner: "marnie", name: "Ava", birth: "2022-05-09", relationship: "Dad" },
  { owner: "bobbie", name: "Lucas", birth: "2020-01-17", relationship: "Grandma" },
  { owner: "bobbie", name: "Isla", birth: "2023-07-30", relationship: "Grandma" },
  { owner: "ana", name: "Mateo", birth: "2017-09-05", relationship: "Mom" },
  { owner: "tom", name: "Ruby", birth: "2021-12-24", relationship: "Grandpa" },
  { owner: "lee", name: "Kai", birth: "2019-06-11", relationship: "Dad" },
  { owner: "priya", name: "Anya", birth: "2020-10-01", relationship: "Mom" },
  { owner: "olu", name: "Tobi", birth: "2022-03-03", relationship: "Other" },
  { owner: "olu", name: "Zara", birth: "2024-09-15", relationship: "Other" },
];

const MOMENTS: [string, string][] = [
  [
    "First day at the park",
    "Chased every pigeon in sight and then fell asleep in the stroller before we even got home.",
  ],
  [
    "Pancake Sunday",
    "Flipped a pancake all by herself. Half of it landed on the floor, the other half was declared delicious.",
  ],
  ["Bath-time concert", "A full song about bubbles, with three verses and a chorus nobody else was allowed to sing."],
  ["New shoes", "Insisted on wearing them to bed. We compromised: shoes on the pillow, feet under the blanket."],
  ["Grandma's garden", "Picked a strawberry, inspected it for a long time, then gave it to the dog."],
  ["Rainy day fort", "Built a fort out of every cushion in the house and charged an entry fee of one hug."],
  ["Library card!", "Got a very own library card and checked out seven books about trucks."],
  ["Snow!", "The first snow of the year. Tried to catch every flake and count them. Got to eleven."],
  ["Beach day", "Buried dad up to the knees and decorated him with shells. A masterpiece."],
  ["Lost tooth", "The first wobbly tooth finally came out during dinner. The tooth fairy has been informed."],
];

const COMMENTS = [
  "This made my day!",
  "So sweet, thank you for sharing.",
  "Look at that smile!",
  "They grow up so fast.",
  "Adorable. Give them a hug from us!",
];

// ---- pictures ---------------------------------------------------------------------------------

/** Users with a profile picture (the others show the icon). */
const USERS_WITH_PICTURE = new Set(["demo", "marnie", "bobbie", "priya", "olu"]);
/** Kids without a picture (indexes into KIDS): most kids have one. */
const KIDS_WITHOUT_PICTURE = new Set([2, 12]);
/** Every sixth moment has no photo. */
const momentHasPhoto = (n: number) => n % 6 !== 5;

const FONT = "DejaVu Sans, Liberation Sans, Arial, sans-serif";

/**
 * Drawn on a `width` × `height` canvas, rendered `scale` times that size. Small pictures keep
 * seeding quick: each one is processed once per row (decode, 3–4 WebP sizes, placeholder).
 */
function svg(width: number, height: number, body: string, scale = 1): Buffer {
  const w = Math.round(width * scale);
  const h = Math.round(height * scale);
  return Buffer.from(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}" viewBox="0 0 ${width} ${height}">${body}</svg>`,
  );
}

function linear(id: string, from: string, to: string, diagonal = false): string {
  const end = diagonal ? `x2="1" y2="1"` : `x2="0" y2="1"`;
  return `<linearGradient id="${id}" x1="0" y1="0" ${end}><stop offset="0" stop-color="${from}"/><stop offset="1" stop-color="${to}"/></linearGradient>`;
}

const PROFILE_COLOURS: [string, string][] = [
  ["#f7a8c4", "#8e5bd6"],
  ["#7fd1c7", "#3a6fd8"],
  ["#ffd27f", "#f06d6d"],
  ["#b5e48c", "#1a936f"],
  ["#ffc6a5", "#c05299"],
];

/** A profile picture: a soft gradient, two light circles, the initial. */
function profileSvg(initial: string, i: number): Buffer {
  const [a, b] = PROFILE_COLOURS[i % PROFILE_COLOURS.length]!;
  return svg(
    480,
    480,
    `<defs>${linear("g", a, b, true)}</defs>
    <rect width="480" height="480" fill="url(#g)"/>
    <circle cx="400" cy="70" r="130" fill="#fff" opacity=".18"/>
    <circle cx="60" cy="430" r="150" fill="#fff" opacity=".14"/>
    <text x="240" y="330" text-anchor="middle" font-family="${FONT}" font-size="250" font-weight="700" fill="#fff">${initial}</text>`,
    400 / 480,
  );
}

const SKIN = ["#f6d3b3", "#e8b48f", "#c68642", "#8d5524", "#f1c27d", "#ffdbac"];
const HAIR = ["#3b2314", "#6b4423", "#d9a441", "#1c1c1c", "#a0522d", "#e6c07b"];
const BACKDROPS: [string, string][] = [
  ["#fde2e4", "#fad2e1"],
  ["#e2ece9", "#bee1e6"],
  ["#fff1c1", "#ffd6a5"],
  ["#dfe7fd", "#cddafd"],
  ["#e9f5db", "#cfe1b9"],
  ["#f0e6ef", "#d7c0e8"],
];
const SHIRTS = ["#ff8fab", "#4cc9f0", "#ffb703", "#90be6d", "#9d4edd", "#f77f00"];

/** A kid: a round smiling face with one of three hairstyles, on a pastel backdrop. */
function kidSvg(i: number): Buffer {
  const skin = SKIN[i % SKIN.length]!;
  const hair = HAIR[(i * 5 + 1) % HAIR.length]!;
  const [b1, b2] = BACKDROPS[i % BACKDROPS.length]!;
  const shirt = SHIRTS[(i * 7 + 2) % SHIRTS.length]!;
  const style = i % 3;
  const hairBack =
    style === 1
      ? `<circle cx="165" cy="190" r="62" fill="${hair}"/><circle cx="475" cy="190" r="62" fill="${hair}"/>`
      : style === 2
        ? [0, 1, 2, 3, 4, 5, 6]
            .map(
              (k) =>
                `<circle cx="${190 + k * 43}" cy="${170 - Math.sin((k / 6) * Math.PI) * 40}" r="52" fill="${hair}"/>`,
            )
            .join("")
        : "";
  const fringe = `<path d="M160 300 Q170 140 320 130 Q470 140 480 300 Q430 215 320 210 Q220 215 160 300 Z" fill="${hair}"/>`;
  return svg(
    640,
    640,
    `<defs>${linear("bg", b1, b2)}</defs>
    <rect width="640" height="640" fill="url(#bg)"/>
    <circle cx="90" cy="90" r="36" fill="#fff" opacity=".6"/>
    <circle cx="560" cy="120" r="22" fill="#fff" opacity=".6"/>
    <path d="M120 640 Q130 500 320 490 Q510 500 520 640 Z" fill="${shirt}"/>
    ${hairBack}
    <circle cx="320" cy="310" r="165" fill="${skin}"/>
    ${fringe}
    <circle cx="262" cy="320" r="15" fill="#2b2d42"/><circle cx="378" cy="320" r="15" fill="#2b2d42"/>
    <circle cx="267" cy="314" r="5" fill="#fff"/><circle cx="383" cy="314" r="5" fill="#fff"/>
    <circle cx="232" cy="372" r="24" fill="#ff6b81" opacity=".35"/><circle cx="408" cy="372" r="24" fill="#ff6b81" opacity=".35"/>
    <path d="M272 388 Q320 440 368 388" stroke="#7a2e3a" stroke-width="10" stroke-linecap="round" fill="none"/>`,
    560 / 640,
  );
}

const SW = 960;
const SH = 720;
/** Scenes are drawn at 960 × 720 and rendered at 800 × 600. */
const SCENE_SCALE = 800 / 960;

/** One scene per moment title (MOMENTS order). */
function sceneSvgs(): Buffer[] {
  const scene = (body: string) => svg(SW, SH, body, SCENE_SCALE);
  const sky = (a: string, b: string) =>
    `<defs>${linear("sky", a, b)}</defs><rect width="${SW}" height="${SH}" fill="url(#sky)"/>`;
  const sun = (x: number, y: number, r = 60) =>
    `<circle cx="${x}" cy="${y}" r="${r}" fill="#ffd166"/><circle cx="${x}" cy="${y}" r="${r + 25}" fill="#ffd166" opacity=".25"/>`;
  const tree = (x: number, y: number, s = 1) =>
    `<rect x="${x - 12 * s}" y="${y}" width="${24 * s}" height="${90 * s}" fill="#8d6346"/><circle cx="${x}" cy="${y - 10 * s}" r="${70 * s}" fill="#52b788"/><circle cx="${x - 40 * s}" cy="${y + 20 * s}" r="${45 * s}" fill="#40916c"/><circle cx="${x + 45 * s}" cy="${y + 15 * s}" r="${48 * s}" fill="#40916c"/>`;
  const bubbles = (n: number, seed: number) =>
    Array.from({ length: n }, (_, k) => {
      const x = (k * 137 + seed * 53) % SW;
      const y = (k * 89 + seed * 31) % 420;
      const r = 14 + ((k * 29) % 40);
      return `<circle cx="${x}" cy="${y}" r="${r}" fill="#fff" opacity=".55" stroke="#bde0fe" stroke-width="3"/>`;
    }).join("");
  const flakes = Array.from(
    { length: 60 },
    (_, k) => `<circle cx="${(k * 157) % SW}" cy="${(k * 97) % 520}" r="${3 + (k % 5)}" fill="#fff" opacity=".9"/>`,
  ).join("");
  const books = Array.from({ length: 14 }, (_, k) => {
    const colours = ["#e63946", "#457b9d", "#f4a261", "#2a9d8f", "#9d4edd", "#ffb703", "#06d6a0"];
    const h = 150 + ((k * 37) % 60);
    return `<rect x="${130 + k * 50}" y="${330 - h}" width="44" height="${h}" rx="4" fill="${colours[k % colours.length]}"/><rect x="${130 + k * 50}" y="${350 - h}" width="44" height="8" fill="#fff" opacity=".6"/>`;
  }).join("");

  return [
    // First day at the park
    scene(`${sky("#a2d2ff", "#e0f4ff")}${sun(800, 130)}
      <path d="M0 470 Q240 360 480 450 T960 430 V720 H0 Z" fill="#95d5b2"/><path d="M0 560 Q300 480 620 560 T960 540 V720 H0 Z" fill="#74c69d"/>
      ${tree(200, 380)}${tree(700, 420, 0.8)}
      <path d="M420 200 q20 -20 40 0 q20 -20 40 0" stroke="#264653" stroke-width="6" fill="none"/><path d="M540 160 q15 -15 30 0 q15 -15 30 0" stroke="#264653" stroke-width="5" fill="none"/>`),
    // Pancake Sunday
    scene(`${sky("#ffe5b4", "#ffc8a2")}
      <ellipse cx="480" cy="520" rx="330" ry="90" fill="#fff"/><ellipse cx="480" cy="510" rx="270" ry="65" fill="#f1f1f1"/>
      ${[0, 1, 2, 3, 4].map((k) => `<ellipse cx="480" cy="${480 - k * 48}" rx="220" ry="52" fill="#e09f3e"/><ellipse cx="480" cy="${470 - k * 48}" rx="210" ry="44" fill="#f4c27a"/>`).join("")}
      <path d="M300 270 Q480 230 660 270 Q650 330 600 300 Q560 380 520 300 Q470 350 430 300 Q380 360 350 300 Q320 330 300 270 Z" fill="#9c4a1a" opacity=".85"/>
      <rect x="440" y="225" width="80" height="45" rx="8" fill="#fff3b0"/>`),
    // Bath-time concert
    scene(`${sky("#caf0f8", "#90e0ef")}
      ${Array.from({ length: 8 }, (_, k) => `<line x1="${k * 120}" y1="0" x2="${k * 120}" y2="400" stroke="#fff" stroke-width="4" opacity=".6"/>`).join("")}
      <rect x="120" y="400" width="720" height="190" rx="90" fill="#fff"/><rect x="160" y="590" width="40" height="60" fill="#adb5bd"/><rect x="760" y="590" width="40" height="60" fill="#adb5bd"/>
      ${bubbles(26, 3)}
      <path d="M700 120 v110 a28 22 0 1 1 -12 -18 v-70 l70 -20 v90 a28 22 0 1 1 -12 -18 v-60 z" fill="#3a0ca3"/>`),
    // New shoes
    scene(`${sky("#fde2e4", "#e2ece9")}
      <rect x="0" y="520" width="${SW}" height="200" fill="#cdb4db"/>
      <path d="M180 500 Q180 360 300 360 L360 360 Q380 430 470 450 Q520 460 520 510 L520 540 L180 540 Z" fill="#ef476f"/><rect x="180" y="530" width="340" height="26" rx="10" fill="#fff"/>
      <path d="M500 500 Q500 360 620 360 L680 360 Q700 430 790 450 Q840 460 840 510 L840 540 L500 540 Z" fill="#ef476f"/><rect x="500" y="530" width="340" height="26" rx="10" fill="#fff"/>
      <path d="M300 400 l50 20 M310 425 l50 20 M620 400 l50 20 M630 425 l50 20" stroke="#fff" stroke-width="8" stroke-linecap="round"/>`),
    // Grandma's garden
    scene(`${sky("#bde0fe", "#fefae0")}${sun(150, 120, 55)}
      <rect x="0" y="470" width="${SW}" height="250" fill="#7f5539"/>
      ${[0, 1, 2, 3, 4]
        .map((k) => {
          const x = 160 + k * 160;
          return `<path d="M${x} 470 q-40 -90 -70 -100 q60 0 70 60 q10 -60 70 -60 q-30 10 -70 100 z" fill="#2d6a4f"/><path d="M${x - 25} 440 q25 -30 50 0 q0 60 -25 80 q-25 -20 -25 -80 z" fill="#e63946"/><circle cx="${x - 8}" cy="465" r="3" fill="#ffe66d"/><circle cx="${x + 8}" cy="475" r="3" fill="#ffe66d"/>`;
        })
        .join("")}`),
    // Rainy day fort
    scene(`${sky("#6c757d", "#adb5bd")}
      ${Array.from({ length: 40 }, (_, k) => `<line x1="${(k * 71) % SW}" y1="${(k * 53) % 300}" x2="${((k * 71) % SW) - 14}" y2="${((k * 53) % 300) + 40}" stroke="#dee2e6" stroke-width="4" stroke-linecap="round"/>`).join("")}
      <rect x="0" y="360" width="${SW}" height="360" fill="#ffe8d6"/>
      <path d="M220 620 L480 330 L740 620 Z" fill="#ff8fab"/><path d="M400 620 L480 480 L560 620 Z" fill="#6d597a"/>
      <rect x="150" y="560" width="180" height="90" rx="30" fill="#8ecae6"/><rect x="630" y="560" width="180" height="90" rx="30" fill="#ffb703"/>
      <line x1="480" y1="330" x2="480" y2="250" stroke="#6d597a" stroke-width="6"/><path d="M480 250 l60 20 l-60 20 z" fill="#ffd166"/>`),
    // Library card!
    scene(`${sky("#f8edeb", "#fcd5ce")}
      <rect x="100" y="350" width="760" height="24" fill="#8d6346"/>${books}
      <rect x="100" y="600" width="760" height="24" fill="#8d6346"/>
      <rect x="300" y="455" width="260" height="110" rx="12" fill="#ffb703"/><rect x="560" y="490" width="110" height="75" rx="10" fill="#fb8500"/>
      <circle cx="360" cy="575" r="32" fill="#343a40"/><circle cx="600" cy="575" r="32" fill="#343a40"/><circle cx="360" cy="575" r="12" fill="#ced4da"/><circle cx="600" cy="575" r="12" fill="#ced4da"/>`),
    // Snow!
    scene(`${sky("#3d5a80", "#98c1d9")}${flakes}
      <path d="M0 520 Q240 450 480 520 T960 500 V720 H0 Z" fill="#f8f9fa"/>
      <circle cx="680" cy="520" r="90" fill="#fff"/><circle cx="680" cy="400" r="62" fill="#fff"/>
      <circle cx="660" cy="390" r="7" fill="#212529"/><circle cx="700" cy="390" r="7" fill="#212529"/><path d="M680 405 l40 12 l-40 8 z" fill="#f77f00"/>
      <path d="M620 440 Q680 470 740 440 L745 460 Q680 490 615 460 Z" fill="#e63946"/>`),
    // Beach day
    scene(`${sky("#8ecae6", "#caf0f8")}${sun(780, 140, 70)}
      <rect x="0" y="360" width="${SW}" height="120" fill="#219ebc"/><path d="M0 400 q60 -20 120 0 t120 0 t120 0 t120 0 t120 0 t120 0 t120 0 t120 0" stroke="#fff" stroke-width="5" fill="none" opacity=".7"/>
      <path d="M0 470 Q480 430 960 470 V720 H0 Z" fill="#ffe8a3"/>
      <line x1="260" y1="300" x2="300" y2="620" stroke="#6c584c" stroke-width="8"/><path d="M120 330 Q260 180 420 290 Z" fill="#ef476f"/>
      <path d="M600 600 q30 -50 60 0 z" fill="#ffafcc"/><path d="M700 630 q20 -35 40 0 z" fill="#cdb4db"/><circle cx="540" cy="640" r="14" fill="#fff"/>`),
    // Lost tooth
    scene(`${sky("#ffc8dd", "#cdb4db")}
      ${[
        [180, 160],
        [780, 200],
        [240, 560],
        [760, 560],
        [480, 110],
      ]
        .map(
          ([x, y]) =>
            `<path d="M${x} ${y! - 30} l9 21 l21 9 l-21 9 l-9 21 l-9 -21 l-21 -9 l21 -9 z" fill="#fff" opacity=".9"/>`,
        )
        .join("")}
      <path d="M360 230 Q480 180 600 230 Q660 330 600 420 Q580 560 540 560 Q510 560 500 470 Q480 430 460 470 Q450 560 420 560 Q380 560 360 420 Q300 330 360 230 Z" fill="#fff" stroke="#e5e5e5" stroke-width="6"/>
      <circle cx="440" cy="320" r="10" fill="#2b2d42"/><circle cx="520" cy="320" r="10" fill="#2b2d42"/><path d="M450 360 Q480 385 510 360" stroke="#2b2d42" stroke-width="6" fill="none" stroke-linecap="round"/>`),
  ];
}

async function jpeg(source: Buffer): Promise<Buffer> {
  const sharp = await loadSharp();
  return sharp(source).flatten({ background: "#ffffff" }).jpeg({ quality: 85 }).toBuffer();
}

/** Every demo picture as JPEG bytes: profiles by user key, kids by KIDS index, scenes by MOMENTS index. */
export async function renderDemoArt(): Promise<{
  profiles: Map<string, Buffer>;
  kids: Map<number, Buffer>;
  scenes: Buffer[];
}> {
  const profileUsers = USERS.filter((u) => USERS_WITH_PICTURE.has(u.key));
  const kidIndexes = KIDS.map((_, i) => i).filter((i) => !KIDS_WITHOUT_PICTURE.has(i));
  const [profiles, kids, scenes] = await Promise.all([
    Promise.all(profileUsers.map((u, i) => jpeg(profileSvg(u.first.charAt(0).toUpperCase(), i)))),
    Promise.all(kidIndexes.map((i) => jpeg(kidSvg(i)))),
    Promise.all(sceneSvgs().map(jpeg)),
  ]);
  return {
    profiles: new Map(profileUsers.map((u, i) => [u.key, profiles[i]!])),
    kids: new Map(kidIndexes.map((k, i) => [k, kids[i]!])),
    scenes,
  };
}

/** Runs `fn` over `items`, at most `limit` at a time (processing has its own queue too). */
async function mapLimit<T, R>(items: T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

// ---- the plan: which rows exist and which have a photo -------------------------------------------

type MomentPlan = { kidIndex: number; title: string; content: string; createdAt: string; scene: number | null };

function planMoments(now: number): MomentPlan[] {
  // 4 moments for each of the first 10 kids, 3 for the rest: 49 in all, spread over 60 days
  const day = 24 * 60 * 60 * 1000;
  const plan: MomentPlan[] = [];
  let n = 0;
  KIDS.forEach((_, i) => {
    const count = i < 10 ? 4 : 3;
    for (let j = 0; j < count; j++) {
      const index = (n * 3 + i) % MOMENTS.length;
      const [title, content] = MOMENTS[index]!;
      const at = new Date(now - ((i * 7 + j * 13) % 60) * day - j * 3600_000 - i * 60_000).toISOString();
      plan.push({ kidIndex: i, title, content, createdAt: at, scene: momentHasPhoto(n) ? index : null });
      n++;
    }
  });
  return plan;
}

type PhotoJob = { kind: ImageKind; bytes: Buffer };

// ---- seeding ----------------------------------------------------------------------------------

export async function seedDemo({ verbose = false }: { verbose?: boolean } = {}): Promise<{ imageKeys: string[] }> {
  const started = Date.now();
  const passwordHash = await hashPassword("password");
  const imageKeys: string[] = [];
  const moments = planMoments(Date.now());

  // 1. Photos: drawn once, then each row's own copy stored through the pipeline (files only).
  const art = await renderDemoArt();
  const userJobs = new Map<string, PhotoJob>();
  for (const [key, bytes] of art.profiles) userJobs.set(key, { kind: "user", bytes });
  const kidJobs = new Map<number, PhotoJob>();
  for (const [i, bytes] of art.kids) kidJobs.set(i, { kind: "kid", bytes });
  const momentJobs = new Map<number, PhotoJob>();
  moments.forEach((m, i) => {
    if (m.scene !== null) momentJobs.set(i, { kind: "moment", bytes: art.scenes[m.scene]! });
  });
  const jobs = [...userJobs.values(), ...kidJobs.values(), ...momentJobs.values()];
  const stored = new Map<PhotoJob, StoredImage>();
  try {
    await mapLimit(jobs, 4, async (job) => {
      const result = await storeImage(await uploadFromBuffer(job.bytes, "demo.jpg", "image/jpeg"));
      if (!result.ok) throw new Error(`demo picture refused: ${result.message}`);
      stored.set(job, result.image);
    });
  } catch (error) {
    await deleteImageFiles([...stored.values()].map((s) => s.key));
    throw error;
  }
  const newKeys = [...stored.values()].map((s) => s.key);

  // 2. Rows, in one transaction (only `trx` inside: the pool has a single connection).
  try {
    await writeTransaction(async (trx) => {
      imageKeys.push(...(await removeDemoAccounts(trx)));

      const imageRow = async (job: PhotoJob | undefined, ownerId: number) =>
        job ? insertImageRow(trx, stored.get(job)!, { kind: job.kind, ownerId }) : null;

      const ids: Record<string, number> = {};
      for (const u of USERS) {
        const userId = await insertUser(trx, {
          username: u.username,
          email: u.email,
          first_name: u.first,
          last_name: u.last,
          password_hash: passwordHash,
          is_demo: true,
        });
        ids[u.key] = userId;
        const imageId = await imageRow(userJobs.get(u.key), userId);
        if (imageId) await setUserImage(trx, userId, imageId);
      }
      const id = (k: string) => ids[k]!;

      // demo: two accepted friends, one request received, one sent; friends among the others too
      const friendships: [string, string, FriendshipStatus][] = [
        ["demo", "marnie", "accepted"],
        ["bobbie", "demo", "accepted"],
        ["ana", "demo", "pending"],
        ["demo", "tom", "pending"],
        ["lee", "demo", "denied"],
        ["marnie", "bobbie", "accepted"],
        ["priya", "olu", "accepted"],
      ];
      const now = nowIso();
      for (const [a, b, status] of friendships) await insertFriendship(trx, id(a), id(b), status, now);

      const kidIds: { id: number; owner: string }[] = [];
      for (const [i, k] of KIDS.entries()) {
        const imageId = await imageRow(kidJobs.get(i), id(k.owner));
        const input = { name: k.name, birth_date: k.birth, relationship: k.relationship };
        kidIds.push({ id: await insertKid(trx, id(k.owner), input, { imageId, createdAt: now }), owner: k.owner });
      }

      const momentIds: { id: number; kid: number }[] = [];
      for (const [i, m] of moments.entries()) {
        const kid = kidIds[m.kidIndex]!;
        const imageId = await imageRow(momentJobs.get(i), id(kid.owner));
        const input = { title: m.title, content: m.content };
        momentIds.push({
          id: await insertMoment(trx, kid.id, input, { imageId, createdAt: m.createdAt }),
          kid: kid.id,
        });
      }

      // likes and comments between friends: on demo's, marnie's and bobbie's kids' moments
      const circle = ["demo", "marnie", "bobbie"];
      const owners = new Map(kidIds.map((k) => [k.id, k.owner]));
      const likes: [number, number][] = [];
      const comments: [number, number, string, string][] = [];
      momentIds.forEach((moment, i) => {
        const owner = owners.get(moment.kid)!;
        if (!circle.includes(owner)) return;
        circle.forEach((who, w) => {
          if ((i + w) % 3 !== 0) likes.push([moment.id, id(who)]);
          if ((i + w) % 4 === 1 && who !== owner) {
            const at = new Date(Date.now() - (i % 5) * 3600_000 - w * 60_000).toISOString();
            comments.push([moment.id, id(who), COMMENTS[(i + w) % COMMENTS.length]!, at]);
          }
        });
      });
      for (const [momentId, userId] of likes) await insertLike(trx, momentId, userId, now);
      for (const [momentId, userId, text, at] of comments) await insertComment(trx, momentId, userId, text, at);
    });
  } catch (error) {
    imageKeys.length = 0;
    await deleteImageFiles(newKeys);
    throw error;
  }

  if (verbose) {
    console.log(
      `Demo data ready in ${Date.now() - started} ms: ${USERS.length} users, ${KIDS.length} kids, ${moments.length} moments, ${newKeys.length} photos. Log in as demo@aa.io / password.`,
    );
  }
  return { imageKeys };
}

/** First start: seed when demo mode is on and the database has no users at all. */
export async function seedIfEmpty(): Promise<boolean> {
  const row = await db()("users").count({ n: "*" }).first();
  if (Number(row?.n ?? 0) > 0) return false;
  const { imageKeys } = await seedDemo({ verbose: true });
  await deleteImageFiles(imageKeys);
  return true;
}
