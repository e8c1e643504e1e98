// One transaction script, two databases. SQLite (bun:sqlite) answers every statement synchronously,
// and the group committer runs a batch of writes inside one transaction without ever yielding the
// event loop (group-commit.ts): a write must be a synchronous function. PostgreSQL drivers answer
// with promises. So a script that spans several tables (accept a lead, record a decision, record an
// attempt) is written once, as a generator over table operations that return a value (SQLite) or
// a promise (PostgreSQL), and run by the driver of its database: `runNow` completes it in one go
// and refuses a promise; `runAwaiting` awaits each promise and resumes the script with its value.
//
//   function* acceptLead(t: Tables, lead: ValidLead): Script<boolean> {
//     const claimed = yield* op(t.phoneClaims.claim(lead.phone, ...));
//     if (claimed) yield* op(t.leads.insert(...));
//     return claimed;
//   }
//
// A generator costs a few allocations per operation, against one promise and a microtask turn each
// if SQLite's writes were made async; the group commit's batch stays one synchronous run.

/** A table operation's answer: the value itself on SQLite, a promise of it on PostgreSQL. */
export type Op<T> = T | Promise<T>;

/** A script over table operations: yields the promises it waits for, returns its result. */
export type Script<T> = Generator<Promise<unknown>, T, unknown>;

/** Inside a script: `const row = yield* op(t.leads.find(id))`. */
export function* op<T>(answer: Op<T>): Script<T> {
  return answer instanceof Promise ? ((yield answer) as T) : answer;
}

/** Runs a script whose operations answer synchronously (SQLite); a promise is a programming error. */
export function runNow<T>(script: Script<T>): T {
  const step = script.next();
  if (!step.done) throw new Error("a synchronous store answered with a promise");
  return step.value;
}

/** Runs a script whose operations may answer with promises (PostgreSQL), awaiting each in turn. */
export async function runAwaiting<T>(script: Script<T>): Promise<T> {
  let step = script.next();
  while (!step.done) {
    let value: unknown;
    try {
      value = await step.value;
    } catch (error) {
      // Thrown into the script at its `yield`, so its own try/finally runs; uncaught, it rejects.
      step = script.throw(error);
      continue;
    }
    step = script.next(value);
  }
  return step.value;
}
