// The map area a client shows at a centre and zoom level (web-mercator tiles of 256 px), for the
// `completed` listing's latitude/longitude/zoom_level filter.
//
// At zoom z the whole world (360° of longitude) is 256·2^z px wide, so a viewport W px wide spans
//   Δlng = 360 · W / (256 · 2^z)   degrees of longitude,
// and, since mercator stretches north-south distances by 1/cos(lat) near the centre, a viewport
// H px high spans about
//   Δlat = 360 · H / (256 · 2^z) · cos(lat)   degrees of latitude.
// We assume a 1024×768 px viewport (a typical desktop map; a phone shows less, so the area is
// generous rather than tight). Without zoom_level the default is zoom 12 (a city district).

const VIEWPORT_WIDTH_PX = 1024;
const VIEWPORT_HEIGHT_PX = 768;
const DEFAULT_ZOOM = 12;

export interface Viewport {
  south: number;
  north: number;
  /** West edge; greater than `east` when the area crosses the antimeridian. */
  west: number;
  east: number;
}

const clamp = (v: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, v));

/** Wraps a longitude into [-180, 180). */
const wrapLongitude = (lng: number) => ((((lng + 180) % 360) + 360) % 360) - 180;

export function viewportAround(latitude: number, longitude: number, zoom: number = DEFAULT_ZOOM): Viewport {
  const worldPx = 256 * 2 ** zoom;
  const lngSpan = (360 * VIEWPORT_WIDTH_PX) / worldPx;
  // cos(lat) never reaches 0 within the accepted range near the poles: keep a floor.
  const latSpan = ((360 * VIEWPORT_HEIGHT_PX) / worldPx) * Math.max(Math.cos((latitude * Math.PI) / 180), 0.01);
  const south = clamp(latitude - latSpan / 2, -90, 90);
  const north = clamp(latitude + latSpan / 2, -90, 90);
  if (lngSpan >= 360) return { south, north, west: -180, east: 180 };
  const west = wrapLongitude(longitude - lngSpan / 2);
  const east = wrapLongitude(longitude + lngSpan / 2);
  // wrapLongitude maps +180 to -180: a span ending exactly on the antimeridian keeps 180.
  return { south, north, west, east: east === -180 ? 180 : east };
}
