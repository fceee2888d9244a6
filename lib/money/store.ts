// Every statement that moves money, for SQLite and PostgreSQL (docs/decisions/0003-reserve-then-settle.md).
// These bypass Prisma on purpose: they run on every request, and Prisma's engine-less client costs ~1 ms per
// query here (docs/decisions/0023-prisma-6-on-webassembly.md). Each operation is atomic: a conditional update, or one transaction.
import Sqlite from "better-sqlite3";
import type pg from "pg";
import { env } from "@/lib/platform/env";
import { pgPool } from "@/lib/platform/db/client";
import { singleton } from "@/lib/platform/singleton";
import { cleanLedgerRow } from "./ledger-row";
import { asBudgetPeriod, periodStart, spentThisPeriod, type BudgetPeriod } from "./budget";
import {
  budgetDeltas,
  DEAD_LETTER_COLUMNS,
  deadLetterValues,
  insertSql,
  isDataError,
  LEDGER_COLUMNS,
  ledgerValues,
  settlementDeltas,
  topupRow,
} from "./store-rows";

/** "budgeted": taken, and counted against the key's budget (its settlement gives the unused part back there too);
 *  "budget": refused, the key's budget for this period cannot cover it (lib/money/budget.ts). */
export type ReserveResult = "ok" | "budgeted" | "missing" | "key_quota" | "balance" | "budget";

/** A key's budget as the money store counts it (null when the key has none). */
export type BudgetState = { limit: number; period: BudgetPeriod; spent: number } | null;

export type LedgerRow = {
  kind: "request" | "topup" | "adjust";
  requestId: string;
  userId: string;
  keyId: string | null;
  keyPrefix: string | null;
  endpoint: string;
  model: string;
  channelId: string | null;
  channelName: string | null;
  textInputTokens: number;
  textOutputTokens: number;
  imageInputTokens: number;
  imageOutputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  reserved: number;
  cost: number;
  /** How far the upstream's bill passed the reservation; charged in full all the same (docs/billing.md). */
  overReservation: number;
  priceVersion: number;
  status: string;
  httpStatus: number;
  error: string | null;
  latencyMs: number;
  /** From arrival to the first upstream attempt, and to the serving upstream's answer starting (ms; absent or 0: none). */
  queueMs?: number;
  firstByteMs?: number;
  stream: boolean;
  detail: unknown;
  createdAt: Date;
};

/**
 * A finished request: give back what was reserved beyond `cost`, or take the rest in full. The rest exists only when
 * an upstream billed past the cap it was sent (a gateway bug or a lying upstream): the balance may then go below zero
 * by that excess, the row carries it in `overReservation`, and the next reservation is refused until a top-up.
 */
export type Settlement = {
  keyId: string;
  userId: string;
  unlimited: boolean;
  reserved: number;
  row: LedgerRow;
  /** False for a request refused after its reservation for its own input: the money goes back, no row is written. */
  record?: boolean;
  /** When the reservation was counted against the key's budget ("budgeted", epoch ms); absent when it was not. */
  budgetAt?: number | null;
};

export type RedeemResult = { status: "ok"; quota: number; balance: number } | { status: "unknown" | "used" | "expired" | "disabled" };

export interface MoneyStore {
  kind: "sqlite" | "postgres";
  /** `at`: the time (epoch ms) whose calendar period the key's budget is counted in. */
  reserve(keyId: string, userId: string, amount: number, at?: number): Promise<ReserveResult>;
  /** What the key (null when unlimited) and its owner have left, and the key's budget at `at`, for a refusal that says so. */
  available(keyId: string, userId: string, at?: number): Promise<{ keyQuota: number | null; balance: number; budget: BudgetState }>;
  /**
   * Applies settlements and writes their ledger rows in one transaction (all or nothing), and sets each key's
   * lastUsedAt; returns the rows as written. A row the database refuses fails the whole call (isDataError).
   */
  settle(settlements: Settlement[]): Promise<LedgerRow[]>;
  /**
   * Keeps a settlement whose row cannot be written in LedgerDeadLetter: with its money movement applied in the same
   * transaction when the database takes that (`moneyApplied`), else alone, its reservation still held.
   */
  deadLetter(settlement: Settlement, failure: unknown): Promise<{ moneyApplied: boolean }>;
  redeem(codeHash: string, userId: string, requestId: string): Promise<RedeemResult>;
  /** Adds (or, negative, removes down to zero) balance; returns the new balance. */
  credit(userId: string, amount: number, row: Omit<LedgerRow, "cost">): Promise<number>;
  ping(): Promise<void>;
  close(): Promise<void>;
}

// ---------------------------------------------------------------------------------------------------- SQLite

/** The budget columns of a key, as either driver reads them (BIGINT may come as a string from pg). */
type KeyBudgetRow = {
  unlimited: number | boolean;
  budget: number | string | null;
  budgetPeriod: string;
  budgetSpent: number | string;
  budgetPeriodStart: number | string | null;
};

function budgetState(key: KeyBudgetRow, at: number): BudgetState {
  if (key.budget === null || key.budget === undefined) return null;
  const period = asBudgetPeriod(key.budgetPeriod);
  const spent = spentThisPeriod(
    {
      budgetPeriod: period,
      budgetSpent: Number(key.budgetSpent),
      budgetPeriodStart: key.budgetPeriodStart === null ? null : Number(key.budgetPeriodStart),
    },
    at,
  );
  return { limit: Number(key.budget), period, spent };
}

type ReserveRequest = {
  keyId: string;
  userId: string;
  amount: number;
  at: number;
  resolve: (result: ReserveResult) => void;
  reject: (error: unknown) => void;
};

/**
 * Gathers the reservations that arrive in one turn of the event loop (every request whose bytes came in the same
 * poll) and hands them to `flush` together; alone, a request waits for nothing (setImmediate runs right after the
 * poll that received it). `flush` answers each request; each stays all or nothing on its own.
 */
class ReserveGatherer {
  private waiting: ReserveRequest[] = [];
  private gathering = false;

  constructor(private readonly flush: (batch: ReserveRequest[]) => void) {}

  reserve(keyId: string, userId: string, amount: number, at: number): Promise<ReserveResult> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ keyId, userId, amount, at, resolve, reject });
      if (this.gathering) return;
      this.gathering = true;
      setImmediate(() => {
        this.gathering = false;
        const batch = this.waiting;
        this.waiting = [];
        this.flush(batch);
      });
    });
  }
}

/** Prisma's SQLite adapter stores DateTime as ISO 8601 text with an explicit offset. */
const sqliteDate = (value: Date) => value.toISOString().replace("Z", "+00:00");
/** SQLite has no boolean: 1 and 0 (other values pass unchanged). */
const sqliteBool = (value: unknown) => (typeof value === "boolean" ? (value ? 1 : 0) : value);

class SqliteMoneyStore implements MoneyStore {
  readonly kind = "sqlite" as const;
  private readonly database: Sqlite.Database;
  private readonly statements;
  private readonly transaction: Sqlite.Transaction<(work: () => unknown) => unknown>;

  constructor(file: string) {
    // timeout 0: never block the event loop waiting for Prisma's connection; run() retries asynchronously.
    this.database = new Sqlite(file, { timeout: 0 });
    // One better-sqlite3 transaction wrapper for every call (creating one per call cost ~5% of a request).
    this.transaction = this.database.transaction((work: () => unknown) => work());
    this.database.pragma("journal_mode = WAL");
    this.database.pragma("synchronous = NORMAL");
    this.database.defaultSafeIntegers(false);
    const prepare = (sql: string) => this.database.prepare(sql);
    this.statements = {
      keyUnlimited: prepare(`SELECT "unlimited" FROM "ApiKey" WHERE "id" = ?`).pluck(),
      keyBudget: prepare(`SELECT "unlimited", "budget", "budgetPeriod", "budgetSpent", "budgetPeriodStart" FROM "ApiKey" WHERE "id" = ?`),
      setBudget: prepare(`UPDATE "ApiKey" SET "budgetSpent" = ?, "budgetPeriodStart" = ? WHERE "id" = ?`),
      giveBudget: prepare(`UPDATE "ApiKey" SET "budgetSpent" = "budgetSpent" - ? WHERE "id" = ?`),
      settleBudget: prepare(
        `UPDATE "ApiKey" SET "budgetSpent" = MAX(0, "budgetSpent" - ?) WHERE "id" = ? AND "budget" IS NOT NULL AND "budgetPeriodStart" IS NOT NULL AND "budgetPeriodStart" <= ?`,
      ),
      takeKey: prepare(`UPDATE "ApiKey" SET "quotaRemaining" = "quotaRemaining" - ? WHERE "id" = ? AND "quotaRemaining" >= ?`),
      takeUser: prepare(`UPDATE "User" SET "balance" = "balance" - ? WHERE "id" = ? AND "balance" >= ?`),
      giveKey: prepare(`UPDATE "ApiKey" SET "quotaRemaining" = "quotaRemaining" + ? WHERE "id" = ?`),
      giveUser: prepare(`UPDATE "User" SET "balance" = "balance" + ? WHERE "id" = ?`),
      keyQuota: prepare(`SELECT "quotaRemaining" FROM "ApiKey" WHERE "id" = ?`).pluck(),
      userBalance: prepare(`SELECT "balance" FROM "User" WHERE "id" = ?`).pluck(),
      touchKey: prepare(`UPDATE "ApiKey" SET "lastUsedAt" = ? WHERE "id" = ?`),
      insertLedger: prepare(insertSql("UsageLog", LEDGER_COLUMNS, () => "?")),
      insertDeadLetter: prepare(insertSql("LedgerDeadLetter", DEAD_LETTER_COLUMNS, () => "?")),
      findCode: prepare(`SELECT "id", "quota", "status", "expiresAt" FROM "RedeemCode" WHERE "codeHash" = ?`),
      claimCode: prepare(
        `UPDATE "RedeemCode" SET "status" = 'used', "redeemedById" = ?, "redeemedAt" = ? WHERE "id" = ? AND "status" = 'unused'`,
      ),
    };
  }

  /** Runs a synchronous transaction, retrying on SQLITE_BUSY without blocking the event loop. */
  private async run<T>(work: () => T): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      try {
        return this.transaction.immediate(work) as T;
      } catch (error) {
        const code = (error as { code?: string }).code ?? "";
        if (!code.startsWith("SQLITE_BUSY") || attempt > 400) throw error;
        await new Promise((resolve) => setTimeout(resolve, Math.min(2 + attempt, 25)));
      }
    }
  }

  /**
   * Reservations that arrive in one turn of the event loop run in one transaction, in arrival order, each all or
   * nothing on its own (as gateway_reserve_many on PostgreSQL). A commit is most of a reservation's cost here: at
   * c=50 this makes ~50 transactions a few.
   */
  private readonly gatherer = new ReserveGatherer((batch) =>
    this.run(() => batch.map((entry) => this.reserveOne(entry.keyId, entry.userId, entry.amount, entry.at))).then(
      (results) => {
        for (const [index, entry] of batch.entries()) entry.resolve(results[index]!);
      },
      (error) => {
        for (const entry of batch) entry.reject(error);
      },
    ),
  );

  reserve(keyId: string, userId: string, amount: number, at = Date.now()): Promise<ReserveResult> {
    return this.gatherer.reserve(keyId, userId, amount, at);
  }

  /**
   * One reservation inside the caller's transaction: the key's budget for this period (as gateway_reserve_many,
   * migration 0012), the key's quota, then the owner's balance, or none of them.
   */
  private reserveOne(keyId: string, userId: string, amount: number, at: number): ReserveResult {
    const s = this.statements;
    const key = s.keyBudget.get(keyId) as KeyBudgetRow | undefined;
    if (key === undefined) return "missing";
    const budgeted = key.budget !== null;
    if (budgeted) {
      const period = asBudgetPeriod(key.budgetPeriod);
      const start = periodStart(period, at);
      const fresh = key.budgetPeriodStart === null || Number(key.budgetPeriodStart) < start;
      const spent = fresh ? 0 : Number(key.budgetSpent);
      if (fresh) s.setBudget.run(0, start, keyId);
      if (spent + amount > Number(key.budget)) return "budget";
      s.giveBudget.run(-amount, keyId);
    }
    if (!key.unlimited && s.takeKey.run(amount, keyId, amount).changes === 0) {
      if (budgeted) s.giveBudget.run(amount, keyId);
      return "key_quota";
    }
    if (s.takeUser.run(amount, userId, amount).changes === 0) {
      if (!key.unlimited) s.giveKey.run(amount, keyId);
      if (budgeted) s.giveBudget.run(amount, keyId);
      return "balance";
    }
    return budgeted ? "budgeted" : "ok";
  }

  async available(keyId: string, userId: string, at = Date.now()) {
    const s = this.statements;
    const key = s.keyBudget.get(keyId) as KeyBudgetRow | undefined;
    return {
      keyQuota: !key || key.unlimited ? null : Number(s.keyQuota.get(keyId) ?? 0),
      balance: Number(s.userBalance.get(userId) ?? 0),
      budget: key ? budgetState(key, at) : null,
    };
  }

  settle(settlements: Settlement[]): Promise<LedgerRow[]> {
    return this.run(() => this.settleInTransaction(settlements));
  }

  private settleInTransaction(settlements: Settlement[]): LedgerRow[] {
    const s = this.statements;
    // Written as one update per key and per user (a batch is mostly one key's requests: one UPDATE instead of two
    // per row). Inside the transaction nothing else moves the rows.
    const { keyDelta, userDelta, touched, written } = settlementDeltas(settlements);
    for (const row of written) s.insertLedger.run(...ledgerValues(row, sqliteDate, sqliteBool));
    for (const [keyId, delta] of keyDelta) if (delta) s.giveKey.run(delta, keyId);
    for (const { keyId, at, delta } of budgetDeltas(settlements)) s.settleBudget.run(delta, keyId, at);
    for (const [userId, delta] of userDelta) if (delta) s.giveUser.run(delta, userId);
    for (const [keyId, at] of touched) s.touchKey.run(sqliteDate(at), keyId);
    return written;
  }

  async deadLetter(settlement: Settlement, failure: unknown): Promise<{ moneyApplied: boolean }> {
    const insert = (applied: boolean) =>
      this.statements.insertDeadLetter.run(...deadLetterValues(settlement, failure, applied, sqliteDate).map(sqliteBool));
    try {
      await this.run(() => {
        this.settleInTransaction([{ ...settlement, record: false }]);
        insert(true);
      });
      return { moneyApplied: true };
    } catch (error) {
      if (!isDataError(error)) throw error;
      await this.run(() => insert(false));
      return { moneyApplied: false };
    }
  }

  redeem(codeHash: string, userId: string, requestId: string): Promise<RedeemResult> {
    const s = this.statements;
    return this.run((): RedeemResult => {
      const code = s.findCode.get(codeHash) as { id: string; quota: number; status: string; expiresAt: string | null } | undefined;
      if (!code) return { status: "unknown" };
      if (code.status === "disabled") return { status: "disabled" };
      if (code.status !== "unused") return { status: "used" };
      if (code.expiresAt && new Date(code.expiresAt).getTime() <= Date.now()) return { status: "expired" };
      const now = new Date();
      if (s.claimCode.run(userId, sqliteDate(now), code.id).changes === 0) return { status: "used" };
      s.giveUser.run(code.quota, userId);
      s.insertLedger.run(...ledgerValues(cleanLedgerRow(topupRow(userId, requestId, code.quota, now)), sqliteDate, sqliteBool));
      return { status: "ok", quota: Number(code.quota), balance: Number(s.userBalance.get(userId)) };
    });
  }

  credit(userId: string, amount: number, row: Omit<LedgerRow, "cost">): Promise<number> {
    const s = this.statements;
    return this.run(() => {
      const balance = Number(s.userBalance.get(userId) ?? 0);
      const applied = amount >= 0 ? amount : -Math.min(Math.max(0, balance), -amount);
      s.giveUser.run(applied, userId);
      s.insertLedger.run(...ledgerValues(cleanLedgerRow({ ...row, cost: -applied }), sqliteDate, sqliteBool));
      return balance + applied;
    });
  }

  async ping(): Promise<void> {
    this.database.prepare("SELECT 1").get();
  }

  async close(): Promise<void> {
    this.database.close();
  }
}

// ------------------------------------------------------------------------------------------------ PostgreSQL

/** The most reservations sent in one call. */
const RESERVE_BATCH = 200;

class PostgresMoneyStore implements MoneyStore {
  readonly kind = "postgres" as const;

  /** `pool`: the server's own (lib/platform/db/client.ts) unless given. */
  constructor(private readonly pool: () => pg.Pool = pgPool) {}

  /**
   * Reservations that arrive together go to PostgreSQL as one call of gateway_reserve_many, one round trip for all
   * of them (at most RESERVE_BATCH a call); each one is still atomic on its own (migration 0003). Under load this
   * turns ~50 queries into a few.
   */
  private readonly gatherer = new ReserveGatherer((batch) => {
    for (let start = 0; start < batch.length; start += RESERVE_BATCH) void this.reserveMany(batch.slice(start, start + RESERVE_BATCH));
  });

  reserve(keyId: string, userId: string, amount: number, at = Date.now()): Promise<ReserveResult> {
    return this.gatherer.reserve(keyId, userId, amount, at);
  }

  async available(keyId: string, userId: string, at = Date.now()) {
    const { rows } = await this.pool().query(
      `SELECT k."unlimited", k."quotaRemaining", k."budget", k."budgetPeriod", k."budgetSpent", k."budgetPeriodStart", (SELECT "balance" FROM "User" WHERE "id" = $2) AS "balance" FROM (SELECT 1) AS one LEFT JOIN "ApiKey" AS k ON k."id" = $1`,
      [keyId, userId],
    );
    const row = rows[0] ?? {};
    const known = row.unlimited !== null && row.unlimited !== undefined;
    return {
      keyQuota: !known || row.unlimited ? null : Number(row.quotaRemaining),
      balance: Number(row.balance ?? 0),
      budget: known ? budgetState(row as KeyBudgetRow, at) : null,
    };
  }

  /** One call for a gathered batch; the budget's period is the first reservation's time (they arrived together). */
  private async reserveMany(batch: ReserveRequest[]): Promise<void> {
    try {
      const { rows } = await this.pool().query<{ results: ReserveResult[] }>(
        "SELECT gateway_reserve_many($1::text[], $2::text[], $3::bigint[], $4::bigint) AS results",
        [batch.map((entry) => entry.keyId), batch.map((entry) => entry.userId), batch.map((entry) => entry.amount), batch[0]!.at],
      );
      const results = rows[0]!.results;
      for (const [index, entry] of batch.entries()) entry.resolve(results[index]!);
    } catch (error) {
      for (const entry of batch) entry.reject(error);
    }
  }

  private async transaction<T>(
    work: (query: (sql: string, values?: unknown[]) => Promise<{ rows: Record<string, unknown>[]; rowCount: number | null }>) => Promise<T>,
  ): Promise<T> {
    const client = await this.pool().connect();
    try {
      await client.query("BEGIN");
      const result = await work((sql, values) => client.query(sql, values));
      await client.query("COMMIT");
      return result;
    } catch (error) {
      await client.query("ROLLBACK").catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }

  /**
   * One round trip: gateway_settle_many (migration 0007) locks every key of the batch by id, then every user (the
   * reservation's lock order), applies the deltas computed here and inserts the rows, in one statement's transaction.
   */
  async settle(settlements: Settlement[]): Promise<LedgerRow[]> {
    const { sql, values, written } = settleManyCall(settlements);
    await this.pool().query(sql, values);
    return written;
  }

  async deadLetter(settlement: Settlement, failure: unknown): Promise<{ moneyApplied: boolean }> {
    const insert = insertSql("LedgerDeadLetter", DEAD_LETTER_COLUMNS, (index) => `$${index + 1}`);
    const values = (applied: boolean) => deadLetterValues(settlement, failure, applied, (value) => value.toISOString());
    try {
      await this.transaction(async (query) => {
        const { sql, values: settleValues } = settleManyCall([{ ...settlement, record: false }]);
        await query(sql, settleValues);
        await query(insert, values(true));
      });
      return { moneyApplied: true };
    } catch (error) {
      if (!isDataError(error)) throw error;
      await this.pool().query(insert, values(false));
      return { moneyApplied: false };
    }
  }

  redeem(codeHash: string, userId: string, requestId: string): Promise<RedeemResult> {
    return this.transaction(async (query): Promise<RedeemResult> => {
      const found = await query(`SELECT "id", "quota", "status", "expiresAt" FROM "RedeemCode" WHERE "codeHash" = $1`, [codeHash]);
      const code = found.rows[0] as { id: string; quota: string; status: string; expiresAt: Date | null } | undefined;
      if (!code) return { status: "unknown" };
      if (code.status === "disabled") return { status: "disabled" };
      if (code.status !== "unused") return { status: "used" };
      if (code.expiresAt && code.expiresAt.getTime() <= Date.now()) return { status: "expired" };
      const now = new Date();
      // The claim is one conditional update: of any number of parallel claims, exactly one changes the row.
      const claimed = await query(
        `UPDATE "RedeemCode" SET "status" = 'used', "redeemedById" = $1, "redeemedAt" = $2 WHERE "id" = $3 AND "status" = 'unused'`,
        [userId, now, code.id],
      );
      if (claimed.rowCount === 0) return { status: "used" };
      const quota = Number(code.quota);
      const updated = await query(`UPDATE "User" SET "balance" = "balance" + $1 WHERE "id" = $2 RETURNING "balance"`, [quota, userId]);
      await insertLedgerRow(query, cleanLedgerRow(topupRow(userId, requestId, quota, now)));
      return { status: "ok", quota, balance: Number(updated.rows[0].balance) };
    });
  }

  credit(userId: string, amount: number, row: Omit<LedgerRow, "cost">): Promise<number> {
    return this.transaction(async (query) => {
      const user = await query(`SELECT "balance" FROM "User" WHERE "id" = $1 FOR UPDATE`, [userId]);
      const balance = Number(user.rows[0]?.balance ?? 0);
      const applied = amount >= 0 ? amount : -Math.min(Math.max(0, balance), -amount);
      await query(`UPDATE "User" SET "balance" = "balance" + $1 WHERE "id" = $2`, [applied, userId]);
      await insertLedgerRow(query, cleanLedgerRow({ ...row, cost: -applied }));
      return balance + applied;
    });
  }

  async ping(): Promise<void> {
    await pgPool().query("SELECT 1");
  }

  async close(): Promise<void> {
    // The pool belongs to lib/platform/db/client.ts and is closed there.
  }
}

/** The call of gateway_settle_many (migration 0007) for a batch: keys and users in lock order, one JSON array of rows. */
function settleManyCall(settlements: Settlement[]): { sql: string; values: unknown[]; written: LedgerRow[] } {
  const { keyDelta, userDelta, touched, written } = settlementDeltas(settlements);
  const budget = budgetDeltas(settlements);
  const keyIds = [...new Set(settlements.map((settlement) => settlement.keyId))].sort();
  const userIds = [...new Set(settlements.map((settlement) => settlement.userId))].sort();
  const rows = written.map((row) => {
    const values = ledgerValues(
      row,
      (value) => value.toISOString(),
      (value) => value,
    );
    const record: Record<string, unknown> = {};
    LEDGER_COLUMNS.forEach((name, index) => {
      record[name] = values[index];
    });
    record.detail = row.detail ?? null;
    return record;
  });
  return {
    sql: "SELECT gateway_settle_many($1::text[], $2::bigint[], $3::text[], $4::text[], $5::bigint[], $6::jsonb, $7::text[], $8::bigint[], $9::bigint[])",
    values: [
      keyIds,
      keyIds.map((id) => keyDelta.get(id) ?? 0),
      keyIds.map((id) => touched.get(id)?.toISOString() ?? null),
      userIds,
      userIds.map((id) => userDelta.get(id) ?? 0),
      JSON.stringify(rows),
      budget.map((entry) => entry.keyId),
      budget.map((entry) => entry.at),
      budget.map((entry) => entry.delta),
    ],
    written,
  };
}

/** The ledger row of a top-up or an adjustment, inside its transaction (settlements go through gateway_settle_many). */
async function insertLedgerRow(query: (sql: string, values?: unknown[]) => Promise<unknown>, row: LedgerRow): Promise<void> {
  const values = ledgerValues(
    row,
    (value) => value.toISOString(),
    (value) => value,
  );
  await query(
    insertSql("UsageLog", LEDGER_COLUMNS, (index) => `$${index + 1}`),
    values,
  );
}

/** A SQLite money store on a database file of the gateway's schema (the server's own is moneyStore()). */
export function openSqliteMoneyStore(file: string): MoneyStore {
  return new SqliteMoneyStore(file);
}

/** A PostgreSQL money store on a pool of the gateway's schema (tests; the server's own is moneyStore()). */
export function openPostgresMoneyStore(pool: pg.Pool): MoneyStore {
  return new PostgresMoneyStore(() => pool);
}

export function moneyStore(): MoneyStore {
  return singleton("billing.store", () => {
    const config = env();
    return config.databaseKind === "sqlite" ? new SqliteMoneyStore(config.sqlitePath!) : new PostgresMoneyStore();
  });
}
