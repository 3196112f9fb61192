// ffprobe: the duration, display resolution and streams of a video. A file ffprobe cannot read,
// or one without a video stream, is an InvalidMediaError (the job fails without retrying).
import ffmpeg from 'fluent-ffmpeg';
import { InvalidMediaError, type MediaTools } from './ffmpeg.js';

export interface VideoProbe {
  /** Seconds. */
  duration: number;
  /** Display size (rotation applied). */
  width: number;
  height: number;
  hasAudio: boolean;
  videoCodec: string;
  formatName: string;
}

export function probeVideo(tools: MediaTools, file: string): Promise<VideoProbe> {
  return new Promise((resolve, reject) => {
    ffmpeg(file)
      .setFfprobePath(tools.ffprobePath)
      .ffprobe((err: Error | null, data: ffmpeg.FfprobeData) => {
        if (err) {
          reject(new InvalidMediaError(`not a decodable video: ${firstProbeLine(err.message)}`));
          return;
        }
        const video = data.streams.find((s) => s.codec_type === 'video' && s.disposition?.attached_pic !== 1);
        if (!video || !video.width || !video.height) {
          reject(new InvalidMediaError('the file holds no video stream'));
          return;
        }
        const duration = Number(data.format.duration ?? video.duration);
        if (!Number.isFinite(duration) || duration <= 0) {
          reject(new InvalidMediaError('the video has no measurable duration'));
          return;
        }
        const rotation = Math.abs(rotationOf(video)) % 180;
        const [width, height] = rotation === 90 ? [video.height, video.width] : [video.width, video.height];
        resolve({
          duration: Math.round(duration * 1000) / 1000,
          width,
          height,
          hasAudio: data.streams.some((s) => s.codec_type === 'audio'),
          videoCodec: video.codec_name ?? 'unknown',
          formatName: data.format.format_name ?? 'unknown',
        });
      });
  });
}

function rotationOf(stream: ffmpeg.FfprobeStream): number {
  const tag = Number((stream.tags as Record<string, unknown> | undefined)?.rotate);
  if (Number.isFinite(tag) && tag !== 0) return tag;
  const sideData = (stream as unknown as { side_data_list?: { rotation?: number }[] }).side_data_list;
  const fromMatrix = sideData?.find((d) => typeof d.rotation === 'number')?.rotation;
  return fromMatrix ?? 0;
}

function firstProbeLine(message: string): string {
  const lines = message.split('\n').map((l) => l.trim()).filter(Boolean);
  // ffprobe's last line names the problem ("Invalid data found when processing input").
  return (lines[lines.length - 1] ?? 'unreadable').replace(/^.*?:\s(?=[A-Z])/, '').slice(0, 200);
}
