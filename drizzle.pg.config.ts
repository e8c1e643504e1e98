import { defineConfig } from "drizzle-kit";

// The PostgreSQL migrations, beside SQLite's (drizzle.config.ts → ./drizzle): generated offline
// from src/db/pg/schema.ts, no server needed.
export default defineConfig({
  dialect: "postgresql",
  schema: "./src/db/pg/schema.ts",
  out: "./drizzle/pg",
});
