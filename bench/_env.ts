/** The environment benchmark scripts run git with: fixed identity, no user or system config, no editor. */
export const benchGitEnv: Record<string, string> = {
  ...(process.env as Record<string, string>),
  GIT_AUTHOR_NAME: 'Bench',
  GIT_AUTHOR_EMAIL: 'bench@example.com',
  GIT_COMMITTER_NAME: 'Bench',
  GIT_COMMITTER_EMAIL: 'bench@example.com',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_EDITOR: 'true',
};
