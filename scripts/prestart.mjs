// Runs before `npm start`: builds dist/ when it is missing or was built from other sources than
// the ones here (scripts/build.mjs keeps their hash in dist/.build-stamp). A fresh build is left
// alone, so a start costs a hash of the sources (milliseconds), not a compile.
import { build, isStale } from './build.mjs';

if (isStale()) {
  const started = Date.now();
  console.error('dist/ is missing or older than the sources: building');
  try {
    build();
  } catch (err) {
    console.error(err.message);
    process.exit(1);
  }
  console.error(`built dist/ in ${Date.now() - started} ms`);
}
