// The commit-msg check: a commit's subject (its first line) has at most 72 characters, so that
// `git log --oneline`, GitHub and mail show it whole; the detail goes in the body, after a blank
// line. Called by .githooks/commit-msg with the path of the message file:
//   node scripts/check-commit-msg.mjs .git/COMMIT_EDITMSG
// Lines starting with '#' are git's comments and are not part of the message.
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

export const MAX_SUBJECT = 72;

/** What is wrong with a commit message, one sentence each; empty when it may be committed. */
export function commitMessageProblems(message) {
  const lines = message.split('\n').filter((line) => !line.startsWith('#'));
  const at = lines.findIndex((line) => line.trim() !== '');
  const subject = at < 0 ? '' : lines[at].trimEnd();
  if (subject === '') return ['The commit message is empty: write a subject line.'];
  const problems = [];
  const length = [...subject].length;
  if (length > MAX_SUBJECT) {
    problems.push(
      `The subject has ${length} characters; at most ${MAX_SUBJECT} are allowed. ` + 'Shorten it and move the detail into the body, after a blank line.',
    );
  }
  const second = lines[at + 1];
  if (second !== undefined && second.trim() !== '') problems.push('Leave a blank line between the subject and the body.');
  return problems;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const file = process.argv[2];
  if (!file) {
    console.error('usage: node scripts/check-commit-msg.mjs <commit message file>');
    process.exit(2);
  }
  const problems = commitMessageProblems(readFileSync(file, 'utf8'));
  if (problems.length > 0) {
    for (const problem of problems) console.error(`commit-msg: ${problem}`);
    console.error(`commit-msg: the message is kept in ${file}; git commit -e -F ${file} edits it again.`);
    process.exit(1);
  }
}
