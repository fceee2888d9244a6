-- SQLite needs no stored function: lib/billing/store.ts reserves inside one synchronous transaction.
SELECT 1;
