// The operator's redeem codes (/api/admin/redeem-codes): generate a batch (the plain codes only in that answer), list.
import { z } from "zod";
import { auditDetail } from "./audit";
import { queryFilter } from "./query";
import { db } from "@/lib/platform/db/client";
import { GatewayError } from "@/lib/platform/errors";
import { randomToken } from "@/lib/platform/crypto";
import { json, parseQuery, readBody } from "@/lib/platform/http/json";
import { newRedeemCode, redeemCodeHash } from "@/lib/accounts/redeem-format";
import { adminRoute, date, quota } from "./route";

export const codesSchema = z.object({
  quota: quota.min(1, "must be at least 1"),
  count: z.number().int().min(1).max(1000),
  expiresAt: date.nullable().optional(),
  batch: z.string().trim().max(100).optional(),
});

export const createRedeemCodes = adminRoute(async (request) => {
  const body = await readBody(request, codesSchema);
  if (body.expiresAt && body.expiresAt.getTime() <= Date.now()) {
    throw new GatewayError(
      "invalid_request",
      "This expiry is in the past: the codes could never be redeemed. Choose a later date, or none.",
      { param: "expiresAt" },
    );
  }
  auditDetail(request, { count: body.count, quota: body.quota, batch: body.batch ?? null });
  const batch = body.batch || `batch-${new Date().toISOString().slice(0, 10)}-${randomToken(6)}`;
  const codes = Array.from({ length: body.count }, () => newRedeemCode());
  await db().redeemCode.createMany({
    data: codes.map((code) => ({
      codeHash: redeemCodeHash(code),
      prefix: code.slice(0, 8),
      batch,
      quota: BigInt(body.quota),
      expiresAt: body.expiresAt ?? null,
    })),
  });
  return json({ batch, codes, quota: body.quota, expiresAt: body.expiresAt ?? null }, 201);
});

export const listCodesQuery = z.object({ batch: queryFilter });

export const listRedeemCodes = adminRoute(async (request) => {
  const { batch } = parseQuery(request, listCodesQuery);
  const rows = await db().redeemCode.findMany({ where: { batch }, orderBy: { createdAt: "desc" }, take: 5000 });
  return json({
    data: rows.map((row) => ({
      id: row.id,
      prefix: row.prefix,
      batch: row.batch,
      quota: Number(row.quota),
      status: row.status,
      expiresAt: row.expiresAt,
      redeemedById: row.redeemedById,
      redeemedAt: row.redeemedAt,
      createdAt: row.createdAt,
    })),
  });
});
