#!/usr/bin/env bash
# Writes a new migration for both providers from the change to prisma/models.prisma.
#   scripts/db-migration.sh NAME
# It diffs the schema of the last commit against the working tree (no database needed: `prisma migrate dev`
# does not work through driver adapters, see docs/decisions/0023-prisma-6-on-webassembly.md).
set -euo pipefail
name=${1:?usage: scripts/db-migration.sh NAME}
cd "$(dirname "$0")/.."
mkdir -p data
node scripts/db-schemas.mjs >/dev/null
for folder in sqlite postgres; do
  last=$(ls prisma/migrations/$folder | sort | tail -n 1)
  number=$(printf '%04d' $((10#${last%%_*} + 1)))
  old=$(mktemp --suffix=.prisma)
  if git cat-file -e HEAD:prisma/$folder/schema.prisma 2>/dev/null; then git show HEAD:prisma/$folder/schema.prisma > "$old"; fi
  out=prisma/migrations/$folder/${number}_$name
  mkdir -p "$out"
  if [ -s "$old" ]; then from=(--from-schema-datamodel "$old"); else from=(--from-empty); fi
  npx prisma migrate diff "${from[@]}" --to-schema-datamodel prisma/$folder/schema.prisma --script \
    | sed -E "s/DEFAULT (\{\}|\[\])/DEFAULT '\1'/" > "$out/migration.sql" # prisma writes JSON defaults unquoted for SQLite
  echo "wrote $out/migration.sql"
  rm -f "$old"
done
