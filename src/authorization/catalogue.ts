// The permissions the service checks, and which seeded role holds which. Seeding only adds
// (an administrator's later changes to roles are kept). Names are `<verb>:<noun>`.
import { DEFAULT_ROLE } from '../auth/index.js';

export const PERMISSIONS = {
  'create:permission': 'Create permissions',
  'read:role': 'List roles',
  'create:role': 'Create roles',
  'read:profile': "Read own and other users' profiles",
  'update:profile': 'Update own profile and avatar',
  'create:follow': 'Follow and unfollow users',
  'create:content': 'Publish property videos',
  'update:any_content': "Edit or delete any user's content",
  'read:contact': "See uploaders' phone numbers and personal data on content detail",
  'create:reaction': 'React to content and comments',
  'upload:file': 'Upload files',
  'create:comment': 'Comment on content',
  'create:chat': 'Create chat rooms and send messages',
  'read:stats': 'Read own statistics',
  'read:any_stats': "Read any user's statistics",
  'read:analytics': "Read the analytics of any user's item (views, watch time, leads)",
  'manage:settings': 'Read and change own settings, two-factor and sessions',
  'create:campaign': 'Estimate, create, pause and resume promotion campaigns',
  'process:payment': 'Pay and top up balance',
  'publish:social': 'Publish content to external platforms',
  'moderate:content': 'Read reports and the audit log, decide on reported content and users (CONTRACT §21)',
  'assign:role': 'Replace the roles a user holds',
  'update:role': "Change a role's description, permissions and whether it is active",
} as const;

type PermissionName = keyof typeof PERMISSIONS;

const everyUser: PermissionName[] = [
  'read:profile',
  'update:profile',
  'create:follow',
  'create:content',
  'create:reaction',
  'upload:file',
  'create:comment',
  'create:chat',
  'read:stats',
  'manage:settings',
  'create:campaign',
  'process:payment',
  'publish:social',
  'read:contact',
];

export const SEEDED_ROLES: Record<string, { description: string; permissions: PermissionName[] }> = {
  end_user: { description: 'Default role of a registered user', permissions: everyUser },
  broker: { description: 'Real-estate broker', permissions: everyUser },
  moderator: { description: 'Moderator: acts on reports (CONTRACT §21)', permissions: [...everyUser, 'moderate:content'] },
  admin: { description: 'Administrator: every permission', permissions: Object.keys(PERMISSIONS) as PermissionName[] },
};

// The role a new account gets is auth's to say (it registers accounts); the catalogue seeds it.
export { DEFAULT_ROLE };
export const ADMIN_ROLE = 'admin';
