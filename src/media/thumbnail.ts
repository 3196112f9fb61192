// One JPEG frame of the video as its thumbnail: at 1 s, or 10% in for clips shorter than 10 s
// (the very first frame is often black or a fade-in). At most 720 px on the long side.
import { ffmpegCommand, runCommand, type MediaTools } from './ffmpeg.js';
import type { VideoProbe } from './probe.js';

function thumbnailTime(duration: number): number {
  return duration >= 10 ? 1 : Math.round(duration * 100) / 1000;
}

export async function writeThumbnail(tools: MediaTools, input: string, output: string, probe: VideoProbe, signal?: AbortSignal): Promise<void> {
  const command = ffmpegCommand(tools, input, probe.container)
    .seekInput(thumbnailTime(probe.duration))
    .outputOptions(
      // The probed stream, not ffmpeg's pick (it would take the largest picture in the file).
      '-map',
      `0:${probe.videoStream}`,
      '-frames:v',
      '1',
      '-vf',
      "scale='if(gt(iw,ih),min(720,iw),-2)':'if(gt(iw,ih),-2,min(720,ih))'",
      '-q:v',
      '3',
      '-an',
    )
    .output(output);
  await runCommand(command, signal);
}
