import { Type } from '@sinclair/typebox';
import { ApiDate, ProblemDetails } from '../../platform/http/schemas.ts';
import { DecisionValue, IMPORT_SOURCE_CMPS, PREFERENCE_SOURCES } from '../evidence/evidence.schemas.ts';
import { AddtlConsent } from '../tcf/additional-consent/additional-consent.schemas.ts';
import { AC_RULES } from '../tcf/additional-consent/additional-consent.service.ts';
import { TC_STRING_RULES, type TcStringRule } from '../tcf/tc-strings/tc-string.schemas.ts';

/** A language tag as browsers report it (`navigator.language`): `en`, `pt-BR`, `zh-Hant-TW`, `es-419`. */
const LanguageTag = Type.String({ pattern: '^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8}){0,3}$', maxLength: 35 });

/** What a page may say a decision came from; "handoff" is the service's own (…/handoffs/redeem). */
const PreferencesSource = Type.Union(
  PREFERENCE_SOURCES.map((s) => Type.Literal(s)),
  {
    description:
      'banner (the default), preference_center, api, gpc (the SDK’s record of a GPC signal), or import (a decision imported from the site’s previous CMP, with importedFrom)',
  },
);

/** A decision imported from the previous CMP (docs/guides/keep-the-choice.md). */
const ImportedFrom = Type.Object(
  {
    cmp: Type.Union(
      IMPORT_SOURCE_CMPS.map((c) => Type.Literal(c)),
      { description: 'One of the CMPs the channel’s imports name (at the configVersion answered)' },
    ),
    recordedAt: Type.String({
      maxLength: 64,
      description:
        'When the visitor made the choice in that CMP (RFC 3339): not in the future (5 minutes of clock drift allowed), younger than consentMaxAgeDays',
      examples: ['2026-03-02T08:15:00Z'],
    }),
    value: Type.String({
      minLength: 1,
      maxLength: 4096,
      pattern: '^[\x20-\x7E]+$',
      description: 'The CMP’s cookie as read (OptanonConsent, CookieConsent, euconsent-v2): printable ASCII',
    }),
  },
  {
    additionalProperties: false,
    description: 'With source "import" only (and then required): what the decision was imported from',
  },
);

export const PreferencesBody = Type.Object(
  {
    subjectId: Type.String({
      minLength: 8,
      maxLength: 128,
      description: "The visitor's opaque id kept by the SDK; only its keyed pseudonym is stored",
    }),
    decisions: Type.Record(Type.String(), DecisionValue, {
      maxProperties: 200,
      description:
        'Purpose key → decision. Required purposes left out are granted; others left out are denied.',
    }),
    configVersion: Type.Integer({ minimum: 1, description: 'The config version the visitor was shown' }),
    source: Type.Optional(PreferencesSource),
    importedFrom: Type.Optional(ImportedFrom),
    language: Type.Optional(LanguageTag),
    gpc: Type.Optional(
      Type.Boolean({
        description:
          'Global Privacy Control was on (so is a `Sec-GPC: 1` request header): gpcOptOut purposes are recorded as denied, except an explicit choice in an opt-out region',
      }),
    ),
    gppString: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 4096,
        description:
          'The IAB GPP string of the decision (channels with a gppCmpId only: on others it is a 422, never decoded); one that does not decode, or whose vendor ranges would expand past the service’s bounds, is a 422',
      }),
    ),
    gpcHonoredShown: Type.Optional(
      Type.Boolean({
        description:
          'The page showed the visitor that their Global Privacy Control signal was honoured ("Opt-Out Request Honored"); recorded on the event (gpcHonoredShown) only when GPC was on',
      }),
    ),
    identityToken: Type.Optional(
      Type.String({
        description:
          'A signed-in visitor’s identity token (docs/guides/signed-in-visitors.md): the decision is then recorded for the account (subjectKind "account", the account’s pseudonym), not the device. A token that is not accepted is a 401 invalid_identity_token and nothing is recorded',
      }),
    ),
    tcString: Type.Optional(
      Type.String({
        minLength: 1,
        // The tcf module's bound (tc-string-bounds.ts): a real string is well under 2,000 characters.
        maxLength: 10_000,
        description:
          "The IAB TC string of the decision (TCF channels, opt-in regions): it must decode, carry the channel's CMP id and a vendor list version the service holds, and keep the rules the 422 response names, else 422",
      }),
    ),
    addtlConsent: Type.Optional(AddtlConsent),
  },
  { additionalProperties: false },
);

/** What each rule of a decision's TC string refuses (the tcf module's tc-string-rules.ts). */
const TC_RULE_TEXT: Record<TcStringRule, string> = {
  tc_not_service_specific: 'IsServiceSpecific is 0 (a global-scope string)',
  tc_policy_version:
    'its TcfPolicyVersion is not the tcfPolicyVersion of the vendor list version it names, or is below 5',
  tc_purpose_li_forbidden:
    'legitimate interest for purpose 1 or 3–6, which take consent only (the vendors’ or the publisher’s)',
  tc_vendor_not_selected:
    'a vendor the channel did not choose, in its vendor consents, legitimate interests or DisclosedVendors',
  tc_vendor_not_disclosed:
    'consent or legitimate interest for a vendor its DisclosedVendors segment does not list',
  tc_created_out_of_range:
    'Created more than a day ahead, or more than the channel’s consentMaxAgeDays days ago (UTC days)',
  tc_contradicts_decisions:
    'a custom purpose of its Publisher TC segment granted (consent or legitimate interest) whose purpose the recorded decisions deny, or that the notice does not have; or no Publisher TC segment (or too few custom purposes) on a channel with optional purposes of its own; custom purpose n is the notice’s n-th purpose',
  tc_publisher_restrictions:
    'publisher restrictions (purpose, type, vendors) other than the channel’s publisherRestrictions, one missing, added or of another type',
  tc_last_updated: 'LastUpdated differs from Created, or is more than 13 months ago',
  tc_channel_mismatch:
    'a CMP id, CmpVersion, PublisherCC or PurposeOneTreatment other than the channel’s as its config served them, or a ConsentLanguage that is not one of the channel’s languages (nor English, the layers’ fallback)',
  tc_out_of_range:
    'UseNonStandardTexts set, a purpose above the vendor list’s highest, a special feature above 2, or a ConsentScreen tcf.js does not write (0 page call, 1 first layer, 2 second layer)',
  tc_signal_not_declared:
    'a vendor consent for a vendor that declares no purpose on consent nor special feature, or a vendor legitimate interest for one that declares no purpose that may rest on it (one declaring only special purposes has none)',
};

/**
 * The preferences route's 422: its validation failures, and the rules a refused TC string names in
 * `errors[].code`. Documentation only: problems are sent by their own serializer (problem.ts).
 */
export const PreferencesProblem = {
  description: [
    'Validation failed (validation_failed, unknown_purpose, idempotency_key_reused). A refused `tcString` gives one entry per rule it breaks, `path` "/tcString" and `code` naming the rule:',
    ...TC_STRING_RULES.map((rule) => `- \`${rule}\`: ${TC_RULE_TEXT[rule]}`),
    'A refused `addtlConsent` (Google Additional Consent) gives `path` "/addtlConsent" and `code` `ac_invalid` (not a version 2 AC string, or one that leaves out a provider the channel shows), `ac_provider_not_selected` (a provider the channel’s googleAdditionalConsent does not list) or `ac_not_expected` (no tcString sent, or the channel has no googleAdditionalConsent).',
    'An event that would be larger than 65,536 bytes in canonical form is refused with `code` `evidence_event_too_large` (path "").',
  ].join('\n'),
  content: {
    'application/problem+json': {
      schema: Type.Composite([
        Type.Omit(ProblemDetails, ['errors']),
        Type.Object({
          errors: Type.Optional(
            Type.Array(
              Type.Object({
                path: Type.String(),
                message: Type.String(),
                code: Type.Optional(
                  Type.Union(
                    [...TC_STRING_RULES, ...AC_RULES, 'evidence_event_too_large' as const].map((rule) =>
                      Type.Literal(rule),
                    ),
                    { description: 'The rule broken (see the response description)' },
                  ),
                ),
              }),
            ),
          ),
        }),
      ]),
    },
  },
};

export const PreferencesReceipt = Type.Object(
  {
    id: Type.String({ examples: ['evt_4kF9x2mQ7pL1vN8sR3tY6w'] }),
    recordedAt: ApiDate,
    receipt: Type.Object({
      hash: Type.String({ pattern: '^[0-9a-f]{64}$' }),
      url: Type.String({
        format: 'uri',
        description:
          "The visitor's receipt: its token is a capability only this answer carries; keep it private",
      }),
    }),
  },
  { $id: 'PreferencesReceipt' },
);
