import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // Agent tests open real sockets; keep runs predictable on a 2-core machine.
    pool: "forks",
    testTimeout: 20_000,
  },
});
