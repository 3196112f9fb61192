// The keys media objects are stored under (in MEDIA_DIR, or in the bucket): relative paths with
// forward slashes, as kept in the database and served at /media/<key>. Keys whose segment starts
// with a dot (work files, exports, unfinished uploads) are never served.
export const uploadRelPath = (userId: string, fileId: string, ext: string) => `uploads/${userId}/${fileId}.${ext}`;
export const contentDirRel = (contentId: string) => `content/${contentId}`;
export const originalRelPath = (contentId: string, ext: string) => `${contentDirRel(contentId)}/original.${ext}`;
export const contentImageRelPath = (contentId: string, imageId: string, ext: string) => `${contentDirRel(contentId)}/images/${imageId}.${ext}`;
export const hlsDirRel = (contentId: string) => `${contentDirRel(contentId)}/hls`;
export const thumbnailRelPath = (contentId: string, token: string) => `${contentDirRel(contentId)}/thumbnail-${token}.jpg`;
export const avatarRelPath = (userId: string, fileId: string) => `avatars/${userId}/${fileId}.webp`;
export const avatarDirRel = (userId: string) => `avatars/${userId}`;
/** A data export's ZIP (a dot prefix: never served as media, only through its download route). */
export const exportRelPath = (exportId: string) => `.exports/${exportId}.zip`;

/**
 * True for a key that names a content tombstone (src/media/storage/local-store.ts): nothing the
 * service stores sits directly in content/ except item directories and those files.
 */
export const isContentTombstone = (segments: string[]): boolean => segments.length === 2 && segments[0] === 'content';
