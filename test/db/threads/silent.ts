// A checkpoint thread that never answers (checkpointer.test.ts).
declare const self: Worker;
self.onmessage = () => {};
export {};
