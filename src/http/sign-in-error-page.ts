import type { FastifyReply, FastifyRequest } from 'fastify';
import { type Problem, sendProblem } from './problem.ts';

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** A client that asked for JSON (an API call) rather than a page (a browser navigation). */
function wantsJson(request: FastifyRequest): boolean {
  const accept = request.headers.accept ?? '';
  return /application\/(problem\+)?json/.test(accept) && !accept.includes('text/html');
}

/**
 * A sign-in that went wrong ends on a page a person can read, with the way back to the sign-in
 * page; API clients get the same problem as problem+json. Nothing on it names a token or claim.
 */
export function sendSignInError(
  request: FastifyRequest,
  reply: FastifyReply,
  problem: Problem,
): FastifyReply {
  reply.header('cache-control', 'no-store');
  if (wantsJson(request)) return sendProblem(reply, problem);
  const title = problem.status === 403 ? 'You cannot sign in here' : 'Sign-in did not work';
  const page = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · Flagstaff</title>
<style>
body{font:16px/1.5 system-ui,sans-serif;margin:0;background:#f6f7f9;color:#1d2330}
main{max-width:32rem;margin:12vh auto;padding:2rem;background:#fff;border-radius:8px;box-shadow:0 1px 3px #0002}
h1{font-size:1.4rem;margin-top:0}a{color:#1f5fd1}
</style>
</head>
<body>
<main id="main">
<h1>${title}</h1>
<p role="alert">${escapeHtml(problem.detail)}</p>
<p><a href="/">Back to the sign-in page</a></p>
</main>
</body>
</html>
`;
  return reply.code(problem.status).type('text/html; charset=utf-8').send(page);
}
