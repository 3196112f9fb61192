// The API's documentation pages, served by the service itself without any CDN:
// - GET /docs: the REST reference, Swagger UI rendering GET /api/v1/openapi.json;
// - GET /docs/events: the Socket.IO event reference, the AsyncAPI standalone renderer on
//   GET /api/v1/asyncapi.json (served here too, built from realtime/contract.ts);
// - GET /docs/assets/<name>: the renderers' files, from their npm packages, by an allow-list.
// The page scripts are files of their own (no inline script), so the pages' CSP stays strict.
import fs from 'node:fs';
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import { gzipSync } from 'node:zlib';
import type { HttpRequest, HttpResponse, TemplatedApp } from 'uWebSockets.js';
import type { AppContext } from '../src/context.js';
import { AppError } from '../src/shared/errors.js';
import type { OpenExchange } from './server.js';
import { ASYNCAPI_PATH, DOCS_ASSETS_PATH, DOCS_PATH, EVENTS_DOCS_PATH, OPENAPI_PATH } from './docs-paths.js';

interface Asset {
  contentType: string;
  /** Read once, on first request. */
  load: () => Buffer;
}

// Resolved through Node's module resolution, so the same paths work from the source tree and
// from a compiled dist/.
const requireFromHere = createRequire(import.meta.url);
const packageFile = (specifier: string) => () => fs.readFileSync(requireFromHere.resolve(specifier));
const text = (content: string) => () => Buffer.from(content);

const JS = 'text/javascript; charset=utf-8';
const CSS = 'text/css; charset=utf-8';
const HTML = 'text/html; charset=utf-8';

const SWAGGER_INIT = `// Renders the OpenAPI document of this service.
window.addEventListener('DOMContentLoaded', function () {
  window.ui = SwaggerUIBundle({
    url: ${JSON.stringify(OPENAPI_PATH)},
    dom_id: '#swagger-ui',
    deepLinking: true,
    docExpansion: 'list',
    defaultModelsExpandDepth: 0,
    tryItOutEnabled: false,
  });
});
`;

const ASYNCAPI_INIT = `// Renders the AsyncAPI document of this service.
window.addEventListener('DOMContentLoaded', function () {
  AsyncApiStandalone.render(
    {
      schema: { url: ${JSON.stringify(ASYNCAPI_PATH)} },
      config: { show: { sidebar: true, errors: true }, sidebar: { showOperations: 'byDefault' } },
    },
    document.getElementById('asyncapi'),
  );
});
`;

/** The allow-list: nothing else under /docs/assets is served. */
const ASSETS: Record<string, Asset> = {
  'swagger-ui.css': { contentType: CSS, load: packageFile('swagger-ui-dist/swagger-ui.css') },
  'swagger-ui-bundle.js': { contentType: JS, load: packageFile('swagger-ui-dist/swagger-ui-bundle.js') },
  'swagger-init.js': { contentType: JS, load: text(SWAGGER_INIT) },
  'asyncapi.css': { contentType: CSS, load: packageFile('@asyncapi/react-component/styles/default.min.css') },
  'asyncapi-standalone.js': { contentType: JS, load: packageFile('@asyncapi/react-component/browser/standalone/index.js') },
  'asyncapi-init.js': { contentType: JS, load: text(ASYNCAPI_INIT) },
  'favicon-32x32.png': { contentType: 'image/png', load: packageFile('swagger-ui-dist/favicon-32x32.png') },
};

const page = (title: string, css: string, rootId: string, scripts: string[]) => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
<link rel="icon" type="image/png" href="${DOCS_ASSETS_PATH}/favicon-32x32.png">
<link rel="stylesheet" href="${DOCS_ASSETS_PATH}/${css}">
</head>
<body>
<div id="${rootId}"></div>
${scripts.map((s) => `<script src="${DOCS_ASSETS_PATH}/${s}"></script>`).join('\n')}
</body>
</html>
`;

const PAGES: Record<string, string> = {
  [DOCS_PATH]: page('REST API reference', 'swagger-ui.css', 'swagger-ui', ['swagger-ui-bundle.js', 'swagger-init.js']),
  [EVENTS_DOCS_PATH]: page('Realtime event reference', 'asyncapi.css', 'asyncapi', ['asyncapi-standalone.js', 'asyncapi-init.js']),
};

/**
 * Only our own origin for scripts, styles, fetches and images. The renderers set inline style
 * attributes and use data: images (icons), hence those two allowances; the AsyncAPI renderer
 * compiles JSON Schema validators at run time (new Function), hence 'unsafe-eval' on its page only.
 */
const csp = (allowEval: boolean) =>
  [
    "default-src 'none'",
    `script-src 'self'${allowEval ? " 'unsafe-eval'" : ''}`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "font-src 'self' data:",
    "connect-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');

/** An answer kept in memory with its validator and a gzip copy. */
interface Cached {
  body: Buffer;
  gzip: Buffer;
  etag: string;
}

function cache(body: Buffer): Cached {
  return { body, gzip: gzipSync(body), etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"` };
}

export function registerDocsPages(uws: TemplatedApp, app: AppContext, openExchange: OpenExchange, buildAsyncApiDocument: (baseUrl: string) => unknown): void {
  const cached = new Map<string, Cached>();
  const cachedOrLoad = (key: string, load: () => Buffer): Cached => {
    let entry = cached.get(key);
    if (!entry) {
      entry = cache(load());
      cached.set(key, entry);
    }
    return entry;
  };

  /** Sends a cached answer: 304 on a matching validator, gzip when the client takes it. */
  const serve = (res: HttpResponse, req: HttpRequest, label: string, key: string, load: () => Buffer, headers: Record<string, string>) => {
    const exchange = openExchange(res, req, label);
    let entry: Cached;
    try {
      entry = cachedOrLoad(key, load);
    } catch (err) {
      exchange.sendError(err);
      return;
    }
    const common = { ...headers, ETag: entry.etag, Vary: 'Accept-Encoding' };
    if (exchange.headers['if-none-match'] === entry.etag) {
      exchange.send(304, common, null);
      return;
    }
    const gzip = /\bgzip\b/.test(exchange.headers['accept-encoding'] ?? '');
    const body = gzip ? entry.gzip : entry.body;
    exchange.send(200, { ...common, ...(gzip ? { 'Content-Encoding': 'gzip' } : {}) }, body);
  };

  uws.get(ASYNCAPI_PATH, (res, req) =>
    serve(res, req, ASYNCAPI_PATH, ASYNCAPI_PATH, () => Buffer.from(JSON.stringify(buildAsyncApiDocument(app.config.publicBaseUrl))), {
      'Content-Type': 'application/json; charset=utf-8',
      'Cache-Control': 'public, max-age=300',
    }),
  );

  for (const [path, html] of Object.entries(PAGES)) {
    uws.get(path, (res, req) =>
      serve(res, req, path, path, text(html), {
        'Content-Type': HTML,
        'Cache-Control': 'no-cache',
        'Content-Security-Policy': csp(path === EVENTS_DOCS_PATH),
      }),
    );
  }

  uws.get(`${DOCS_ASSETS_PATH}/:name`, (res, req) => {
    const name = req.getParameter(0) ?? '';
    const asset = Object.hasOwn(ASSETS, name) ? ASSETS[name] : undefined;
    if (!asset) {
      openExchange(res, req, `${DOCS_ASSETS_PATH}/:name`).sendError(new AppError(404, 'docs.error.not_found', 'No such documentation file'));
      return;
    }
    // The files change only with the installed packages: an hour, revalidated by ETag after.
    serve(res, req, `${DOCS_ASSETS_PATH}/:name`, name, asset.load, { 'Content-Type': asset.contentType, 'Cache-Control': 'public, max-age=3600' });
  });
}
