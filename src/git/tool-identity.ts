/**
 * The author and committer of the commits splintercat makes for its own bookkeeping (check
 * requests and results, shared records): they say who made them inside, so no identity of the
 * machine (user.name, user.email) is needed to make them.
 */
export const TOOL_IDENTITY: Record<string, string> = {
  GIT_AUTHOR_NAME: 'splintercat',
  GIT_AUTHOR_EMAIL: 'splintercat@localhost',
  GIT_COMMITTER_NAME: 'splintercat',
  GIT_COMMITTER_EMAIL: 'splintercat@localhost',
};
