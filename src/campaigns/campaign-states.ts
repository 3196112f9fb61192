// Campaign state changes (CONTRACT §12): active → paused (pause), paused → active (resume),
// active | paused → completed (when the duration ends). Pausing does not extend the end: a
// campaign runs for its duration from launch. A pause or resume on a campaign already past its
// end completes it instead and says so; every other move is 409.
import type { AppContext } from '../context.js';
import { conflict } from '../shared/errors.js';
import { now } from '../shared/clock.js';
import { campaignView, lockOwnCampaign, setCampaignStatus, type CampaignRow, type CampaignView } from './campaign-repository.js';

export interface StateChange {
  campaign: CampaignView;
  message: string;
}

const invalidTransition = (from: string, action: string) =>
  conflict('campaign.error.invalid_transition', `A ${from} campaign cannot be ${action}`, { field: 'status', constraint: `not ${from}` });

const hasEnded = (row: CampaignRow, at: Date) => new Date(row.ends_at as Date).getTime() <= at.getTime();

async function changeState(app: AppContext, userId: string, campaignId: string, action: 'pause' | 'resume'): Promise<StateChange> {
  return app.db.transaction(async (tx) => {
    const row = await lockOwnCampaign(tx, userId, campaignId, 'id');
    const at = now();
    if (row.status === 'completed') throw invalidTransition('completed', action === 'pause' ? 'paused' : 'resumed');
    if (hasEnded(row, at)) {
      const completed = await setCampaignStatus(tx, row.id, 'completed', at);
      return { campaign: campaignView(app.config, completed), message: 'The campaign had reached its end and is now completed' };
    }
    if (action === 'pause') {
      if (row.status !== 'active') throw invalidTransition(row.status, 'paused');
      return { campaign: campaignView(app.config, await setCampaignStatus(tx, row.id, 'paused', at)), message: 'Campaign paused' };
    }
    if (row.status !== 'paused') throw invalidTransition(row.status, 'resumed');
    return { campaign: campaignView(app.config, await setCampaignStatus(tx, row.id, 'active', at)), message: 'Campaign resumed' };
  });
}

export const pauseCampaign = (app: AppContext, userId: string, campaignId: string) => changeState(app, userId, campaignId, 'pause');
export const resumeCampaign = (app: AppContext, userId: string, campaignId: string) => changeState(app, userId, campaignId, 'resume');
