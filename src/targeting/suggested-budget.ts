// A budget range to suggest for a location, growing with its population.
// min: a 7-day campaign that shows the post twice to 5% of the people at the base CPM
//      (0.05 × P × 2 / 1000 × CPM = 4 VND per inhabitant at 40,000 VND CPM);
// max: the same reaching 20% of the people (16 VND per inhabitant).
// Both rounded up to 100,000 VND; min never below the Basic preset, max at least twice min.
import { BASE_CPM, BUDGET_PRESETS } from '../pricing/index.js';

const STEP = 100_000;
const roundUp = (amount: number) => Math.ceil(amount / STEP) * STEP;
const costToShowTwice = (people: number) => ((people * 2) / 1000) * BASE_CPM;

export function suggestedBudget(population: number): { min: number; max: number } {
  const min = Math.max(BUDGET_PRESETS.basic, roundUp(costToShowTwice(population * 0.05)));
  const max = Math.max(min * 2, roundUp(costToShowTwice(population * 0.2)));
  return { min, max };
}
