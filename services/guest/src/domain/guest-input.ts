// What a create or a PATCH of a guest profile must satisfy before anything is read or sent. No I/O.
import { GUEST_LANGUAGE_PATTERN, MAX_GUEST_NAME_LENGTH } from '@vrp/api-model';
import { isProvider, PROVIDERS } from '@vrp/pms-matrix';

export interface CreateGuestInput {
  firstName: string;
  lastName: string;
  language: string;
  provider: string;
  email: string;
  phone: string;
}

export interface UpdateGuestInput {
  firstName?: string;
  lastName?: string;
  language?: string;
}

/** BCP 47-like: "en", "pt-BR", "zh-Hant" (the API's vocabulary, which the gateway checks too). */
const LANGUAGE = GUEST_LANGUAGE_PATTERN;

function nameProblems(input: { firstName?: string; lastName?: string }, problems: Record<string, string>): void {
  for (const field of ['firstName', 'lastName'] as const) {
    if ((input[field]?.trim().length ?? 0) > MAX_GUEST_NAME_LENGTH) problems[field] = `must be at most ${MAX_GUEST_NAME_LENGTH} characters`;
  }
}

export function createGuestProblems(input: CreateGuestInput): Record<string, string> {
  const problems: Record<string, string> = {};
  if (!input.firstName.trim()) problems.firstName = 'is required';
  if (input.language && !LANGUAGE.test(input.language)) problems.language = 'must be a language tag such as en or pt-BR';
  if (input.provider && !isProvider(input.provider)) problems.provider = `must be one of ${PROVIDERS.join(', ')}`;
  nameProblems(input, problems);
  return problems;
}

export function updateGuestProblems(input: UpdateGuestInput): Record<string, string> {
  const problems: Record<string, string> = {};
  if (input.firstName !== undefined && !input.firstName.trim()) problems.firstName = 'must not be empty';
  if (input.language !== undefined && !LANGUAGE.test(input.language)) problems.language = 'must be a language tag such as en or pt-BR';
  if (input.firstName === undefined && input.lastName === undefined && input.language === undefined)
    problems.body = 'must change at least one of firstName, lastName, language';
  nameProblems(input, problems);
  return problems;
}
