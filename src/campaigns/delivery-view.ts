// The `delivery` object of a campaign (CONTRACT §26) and how it is put together from the
// campaign's own counters and the figures the views module keeps (a port: campaigns do not read
// playback reports themselves).
import { z } from 'zod';
import type { DeliveryCounters } from './delivery-repository.js';

export const deliverySchema = z
  .object({
    impressions: z.number().int().describe('Times the sponsored item was served'),
    reach: z.number().int().describe('Distinct viewers it was served to'),
    views: z.number().int(),
    watch_seconds: z.number().int(),
    engagement: z.number().int().describe("Reactions, comments and follows of the owner by the campaign's viewers after they were first shown it"),
    leads: z.number().int(),
    spent: z.number().int().describe('floor(impressions × cpm / 1000), VND'),
    remaining: z.number().int().describe('budget − spent − refunded, VND'),
    refunded: z.number().int().describe('Unspent budget returned to the balance at completion, VND'),
  })
  .describe('What the campaign delivered so far; may lag by up to 10 s');
export type DeliveryView = z.infer<typeof deliverySchema>;

/** `campaign:progress` on /notifications. */
export const campaignProgressSchema = z.object({ campaign_id: z.string(), delivery: deliverySchema });

export interface CampaignViewFigures {
  views: number;
  watch_seconds: number;
  leads: number;
}

/** Per-campaign views, watched seconds and leads, from the views module (wired by the composition root). */
export type CampaignViewFiguresPort = (campaignIds: string[]) => Promise<Map<string, CampaignViewFigures>>;

/** A port that knows no views yet: every figure 0. */
export const noViewFigures: CampaignViewFiguresPort = async () => new Map();

/** What `impressions` are charged: the smallest whole VND at or below impressions × cpm / 1000. */
export const spentFor = (impressions: number, cpm: number): number => Math.floor((impressions * cpm) / 1000);

export function deliveryView(budget: number, counters: DeliveryCounters | undefined, figures: CampaignViewFigures | undefined): DeliveryView {
  const impressions = Number(counters?.impressions ?? 0);
  const spent = counters ? spentFor(impressions, Number(counters.cpm)) : 0;
  const refunded = Number(counters?.refunded ?? 0);
  return {
    impressions,
    reach: Number(counters?.reach ?? 0),
    views: figures?.views ?? 0,
    watch_seconds: figures?.watch_seconds ?? 0,
    engagement: Number(counters?.engagement ?? 0),
    leads: figures?.leads ?? 0,
    spent,
    remaining: Math.max(0, budget - spent - refunded),
    refunded,
  };
}
