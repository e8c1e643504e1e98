// A checkpoint thread that exits at its first request (checkpointer.test.ts).
declare const self: Worker;
self.onmessage = () => process.exit(0);
export {};
