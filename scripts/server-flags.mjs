// Node.js flags of the production server (scripts/start.mjs), which `npm run bench` starts the same way.
// --max-semi-space-size=64: a young generation of 64 MB per semi-space (16 MB by default). At a few hundred requests in
// flight, the default one promoted most of each request's short-lived objects to the old generation, and the major
// collections that followed stopped the event loop for 60-140 ms each (seen with monitorEventLoopDelay and the gc
// performance entries during `npm run bench`, chat at c=50); with 64 MB they die young. docs/architecture.md
// ("Garbage collection") has the numbers.
export const SERVER_NODE_FLAGS = ["--max-semi-space-size=64"];
