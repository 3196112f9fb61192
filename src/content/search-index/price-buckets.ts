// The buckets of the price facet (CONTRACT §23), the same for the listing index and PostgreSQL's facet counts.
/**
 * The price buckets of the price facet: 1, 2 and 5 times each power of ten (`[1, 2)`, `[2, 5)`,
 * `[5, 10)`, `[10, 20)`, …), whatever the currency, and `[0, 1)` below them. An item's bucket
 * start for its price.
 */
export function priceBucketOf(price: number): { from: number; to: number } {
  if (price < 1) return { from: 0, to: 1 };
  let power = 10 ** Math.floor(Math.log10(price));
  if (power * 10 <= price) power *= 10; // log10 rounding just below a power of ten
  if (power > price) power /= 10;
  const steps = [1, 2, 5, 10];
  for (let s = 0; s < 3; s++) {
    if (price < steps[s + 1] * power) return { from: steps[s] * power, to: steps[s + 1] * power };
  }
  return { from: 5 * power, to: 10 * power };
}
