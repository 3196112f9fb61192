// One JPEG frame of the video as its thumbnail: at 1 s, or 10% in for clips shorter than 10 s
// (the very first frame is often black or a fade-in). At most 720 px on the long side.
import { ffmpegCommand, runCommand, type MediaTools } from './ffmpeg.js';

export function thumbnailTime(duration: number): number {
  return duration >= 10 ? 1 : Math.round(duration * 100) / 1000;
}

export async function writeThumbnail(tools: MediaTools, input: string, output: string, duration: number, signal?: AbortSignal): Promise<void> {
  const command = ffmpegCommand(tools, input)
    .seekInput(thumbnailTime(duration))
    .outputOptions(
      '-frames:v', '1',
      '-vf', "scale='if(gt(iw,ih),min(720,iw),-2)':'if(gt(iw,ih),-2,min(720,ih))'",
      '-q:v', '3',
      '-an',
    )
    .output(output);
  await runCommand(command, signal);
}
