// Next.js configuration (ESM: package.json has "type": "module"). Types are checked by `npm test` (tsc --noEmit).
/** @type {import("next").NextConfig} */
const config = {
  // Native modules and the Prisma runtime stay outside the bundle (docs/architecture.md, "Platform notes").
  serverExternalPackages: [
    "better-sqlite3",
    "sharp",
    "@prisma/client",
    "@prisma/adapter-better-sqlite3",
    "@prisma/adapter-pg",
    "pg",
    "ioredis",
    "nodemailer",
    "prom-client",
  ],
  poweredByHeader: false,
  reactStrictMode: true,
  // Types are checked once by `npm test` (tsc --noEmit); checking again inside every build doubles its time.
  typescript: { ignoreBuildErrors: true },
  // Portal pages may not be framed (clickjacking) nor leak their URLs; /v1 and /api answer with their own headers.
  // HSTS is added by server.ts when APP_URL is https (it is known only at run time). The full Content-Security-Policy
  // with a per-view script nonce is set by proxy.ts on pages.
  async headers() {
    return [
      {
        source: "/((?!v1/|v1beta/|api/).*)",
        headers: [
          { key: "X-Frame-Options", value: "DENY" },
          { key: "Referrer-Policy", value: "strict-origin-when-cross-origin" },
          { key: "X-Content-Type-Options", value: "nosniff" },
        ],
      },
    ];
  },
};

export default config;
