/**
 * Hands a file to the browser's download from an extension page: a link to a blob URL, clicked.
 * The URL outlives the click for a minute, since the download starts reading it after the click
 * returns. `data-download` names the file for tests that catch the click.
 */
export function saveFile(blob: Blob, name: string) {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  a.dataset.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}
