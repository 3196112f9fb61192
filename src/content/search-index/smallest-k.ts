// The first k of many by a numeric key, without sorting them all: a page of a listing needs the
// rows up to its end, not the order of every match (quickselect, then a sort of those k).

/**
 * Reorders `keys[0..count)` (and `values` with them) so that the k smallest keys come first, in
 * ascending order. Keys must be distinct (the callers' keys end in a rank or an id's rank).
 */
export function smallestFirst(keys: Float64Array, values: Int32Array, count: number, k: number): void {
  const swap = (i: number, j: number) => {
    const key = keys[i];
    keys[i] = keys[j];
    keys[j] = key;
    const value = values[i];
    values[i] = values[j];
    values[j] = value;
  };
  k = Math.min(k, count);
  if (k <= 0) return;
  // Quickselect: afterwards keys[0..k) are the k smallest (in any order).
  let lo = 0;
  let hi = count - 1;
  while (hi > lo) {
    const pivot = keys[(lo + hi) >>> 1];
    let i = lo;
    let j = hi;
    while (i <= j) {
      while (keys[i] < pivot) i++;
      while (keys[j] > pivot) j--;
      if (i <= j) swap(i++, j--);
    }
    if (k - 1 <= j) hi = j;
    else if (k - 1 >= i) lo = i;
    else break;
  }
  // Sort the first k (insertion sort for a page's worth, else by index).
  if (k <= 64) {
    for (let i = 1; i < k; i++) {
      for (let j = i; j > 0 && keys[j - 1] > keys[j]; j--) swap(j, j - 1);
    }
    return;
  }
  const idx = Array.from({ length: k }, (_, i) => i).sort((a, b) => keys[a] - keys[b]);
  const sortedKeys = idx.map((i) => keys[i]);
  const sortedValues = idx.map((i) => values[i]);
  keys.set(sortedKeys);
  values.set(sortedValues);
}
