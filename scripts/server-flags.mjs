// Node.js flags of the production server (scripts/start.mjs), which `npm run bench` starts the same way.
// --max-semi-space-size=64: a young generation of 64 MB per semi-space (16 MB by default). At a few hundred requests in
// flight, the default one promoted most of each request's short-lived objects to the old generation, and the major
// collections that followed stopped the event loop for 60-140 ms each (seen with monitorEventLoopDelay and the gc
// performance entries during `npm run bench`, chat at c=50); with 64 MB they die young.
// --heap-growing-percent=100: the old generation may grow to twice what the last full collection left alive before the
// next one starts. Without it, after a full collection that shrinks the heap (V8's low-memory collection, as the
// bench's forced collection is), V8 kept the limit so close to the live size that incremental marking ran back to back
// while images and uploads passed through, and their CPU per request rose by half. docs/decisions/0011-gc-flags.md
// has the numbers for both.
export const SERVER_NODE_FLAGS = ["--max-semi-space-size=64", "--heap-growing-percent=100"];
