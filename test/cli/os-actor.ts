// The audit actor an operator command run by this test process writes: the process's user as `id`
// names it (not $USER, which a service account or cron job may not set).
export const OS_ACTOR = `cli:${Bun.spawnSync(["id", "-un"]).stdout.toString().trim()}`;
