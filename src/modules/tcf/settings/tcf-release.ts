/**
 * The service's TCF release: a whole number raised with every change to tcf.js (sdk/src/tcf and what
 * it bundles), each listed in docs/tcf-changelog.md. A channel that does not pin its own `cmpVersion`
 * reports this one, in `ping` and in every TC string its visitors make, so that vendors and IAB's
 * validator can tell one behaviour of the CMP from another. Raise it, and add the changelog entry, in
 * the change that alters tcf.js; the docs test checks that the two agree.
 */
export const TCF_RELEASE = 4;
