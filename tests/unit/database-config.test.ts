// Which engine the configuration picks (docs/decisions/0014-postgresql.md).
import { afterEach, describe, expect, it } from "vitest";
import { databaseTarget, isPostgresUrl, knexConfig } from "../../db/knexfile.mjs";
import { readEnv } from "../../server/env.mjs";

const saved = process.env.DATABASE_URL;
afterEach(() => {
  if (saved === undefined) delete process.env.DATABASE_URL;
  else process.env.DATABASE_URL = saved;
});

describe("DATABASE_URL chooses PostgreSQL, else the SQLite file", () => {
  it("knexConfig: a postgres:// URL is pg, anything else a SQLite file", () => {
    const pg = knexConfig("postgres://sweet@127.0.0.1:5432/sweet");
    expect(pg.client).toBe("pg");
    expect(pg.connection).toMatchObject({
      connectionString: "postgres://sweet@127.0.0.1:5432/sweet",
      application_name: "sweet-moments",
    });
    expect(pg.pool).toMatchObject({ min: 0, max: 10 });
    expect(knexConfig("postgresql://db.example/x").client).toBe("pg");
    const sqlite = knexConfig("/tmp/x.sqlite");
    expect(sqlite.client).toBe("sqlite3");
    expect(sqlite.connection).toEqual({ filename: "/tmp/x.sqlite" });
    expect(pg.migrations).toEqual(sqlite.migrations);
  });

  it("parses 64-bit integers and numerics as numbers, booleans as 1/0 (as SQLite stores them), other types as pg does", () => {
    const types = (
      knexConfig("postgres://h/db").connection as {
        types: { getTypeParser(oid: number, format?: string): (v: string) => unknown };
      }
    ).types;
    expect(types.getTypeParser(20, "text")("42")).toBe(42);
    expect(types.getTypeParser(1700, "text")("1.5")).toBe(1.5);
    expect(types.getTypeParser(23, "text")("7")).toBe(7); // int4: pg's own parser
    expect(types.getTypeParser(16, "text")("t")).toBe(1); // boolean: 1/0, docs/decisions/0046-typed-rows.md
    expect(types.getTypeParser(16, "text")("f")).toBe(0);
    expect(types.getTypeParser(1184, "text")("2026-11-26 10:00:00+00")).toBeInstanceOf(Date); // timestamptz: pg's own
  });

  it("the environment: unset or empty is SQLite; a URL of another kind stops the start", () => {
    delete process.env.DATABASE_URL;
    expect(readEnv().databaseUrl).toBeNull();
    expect(databaseTarget({ DATABASE_FILE: "/tmp/a.sqlite" })).toBe("/tmp/a.sqlite");
    process.env.DATABASE_URL = "  ";
    expect(readEnv().databaseUrl).toBeNull();
    process.env.DATABASE_URL = "postgres://sweet@127.0.0.1:54329/sweet";
    expect(readEnv().databaseUrl).toBe("postgres://sweet@127.0.0.1:54329/sweet");
    expect(databaseTarget({ DATABASE_URL: "postgres://h/db", DATABASE_FILE: "/tmp/a.sqlite" })).toBe("postgres://h/db");
    process.env.DATABASE_URL = "mysql://h/db";
    expect(() => readEnv()).toThrow("DATABASE_URL must be a postgres:// (or postgresql://) URL");
    expect(isPostgresUrl("POSTGRES://h/db")).toBe(true);
    expect(isPostgresUrl("file:/tmp/x.sqlite")).toBe(false);
  });
});
