// Matches a method and path to a declared route. Static segments win over parameters, so
// `/user/sessions/others` is matched before `/user/sessions/:session_id`. Each route is prepared
// once when the router is built (the server's pipeline of steps), and a match carries it.
import type { AnyRoute, HttpMethod } from './route.js';

interface CompiledRoute<P> {
  route: AnyRoute;
  prepared: P;
  segments: { literal: string | null; param: string | null }[];
}

export interface RouteMatch<P> {
  route: AnyRoute;
  prepared: P;
  params: Record<string, string>;
}

export type MatchResult<P> = { kind: 'found'; match: RouteMatch<P> } | { kind: 'bad_path' } | { kind: 'none' };

const splitPath = (path: string): string[] => path.split('/').filter((s) => s.length > 0);

export class Router<P> {
  private readonly byMethod = new Map<HttpMethod, CompiledRoute<P>[]>();

  constructor(routes: AnyRoute[], prepare: (route: AnyRoute) => P) {
    const seen = new Set<string>();
    for (const route of routes) {
      const key = `${route.method} ${route.path}`;
      if (seen.has(key)) throw new Error(`route declared twice: ${key}`);
      seen.add(key);
      const segments = splitPath(route.path).map((s) => (s.startsWith(':') ? { literal: null, param: s.slice(1) } : { literal: s, param: null }));
      const list = this.byMethod.get(route.method) ?? [];
      list.push({ route, prepared: prepare(route), segments });
      this.byMethod.set(route.method, list);
    }
    for (const list of this.byMethod.values()) {
      list.sort((a, b) => {
        const n = Math.min(a.segments.length, b.segments.length);
        for (let i = 0; i < n; i++) {
          const aStatic = a.segments[i].literal !== null;
          const bStatic = b.segments[i].literal !== null;
          if (aStatic !== bStatic) return aStatic ? -1 : 1;
        }
        return 0;
      });
    }
  }

  match(method: string, path: string): MatchResult<P> {
    const list = this.byMethod.get(method.toUpperCase() as HttpMethod);
    if (!list) return { kind: 'none' };
    const parts = splitPath(path);
    for (const candidate of list) {
      if (candidate.segments.length !== parts.length) continue;
      const params: Record<string, string> = {};
      let ok = true;
      for (let i = 0; i < parts.length; i++) {
        const seg = candidate.segments[i];
        if (seg.literal !== null) {
          if (seg.literal !== parts[i]) {
            ok = false;
            break;
          }
        } else {
          try {
            params[seg.param!] = decodeURIComponent(parts[i]);
          } catch {
            return { kind: 'bad_path' };
          }
        }
      }
      if (ok) return { kind: 'found', match: { route: candidate.route, prepared: candidate.prepared, params } };
    }
    return { kind: 'none' };
  }

  routes(): AnyRoute[] {
    return [...this.byMethod.values()].flat().map((c) => c.route);
  }
}
