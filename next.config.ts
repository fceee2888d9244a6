import type { NextConfig } from "next";

const config: NextConfig = {
  // Native modules and the Prisma runtime stay outside the bundle (stack notes).
  serverExternalPackages: ["better-sqlite3", "sharp", "@prisma/client", "@prisma/adapter-better-sqlite3", "@prisma/adapter-pg", "pg", "ioredis", "nodemailer", "prom-client"],
  poweredByHeader: false,
  reactStrictMode: true,
  // Types are checked once by `npm test` (tsc --noEmit); checking again inside every build doubles its time.
  typescript: { ignoreBuildErrors: true },
};

export default config;
