/* kclass.h - kernel classes: which kind of work a GPU kernel's name says
 * it does, and whether a generated kernel could take its place.
 *
 * Owns: the fixed list of classes (reports have stable columns), reading
 * the ordered rule file (dataset/maps/kernel-classes.rules; its format is
 * documented at its top and in docs/profiles.md), classifying one
 * (activity kind, name) -- memcpy and memset activities are "copy"
 * whatever their name, kernels take the class of the first rule whose
 * POSIX extended regular expression matches, case-insensitively, else
 * "other" -- and the addressable rule.  Must not: read the store, print.
 */
#ifndef HR_KCLASS_H
#define HR_KCLASS_H

#include <stddef.h>

#include "../dataset/base/err.h"

enum kclass {
	KC_GEMM, KC_ATTENTION, KC_CONVOLUTION, KC_NORMALIZATION, KC_SOFTMAX,
	KC_EMBEDDING, KC_REDUCTION, KC_ELEMENTWISE, KC_COMMUNICATION,
	KC_COPY, KC_OTHER, KC_COUNT
};

/* "gemm", "attention", ... (lower case, as in the rule file). */
const char *kclass_name(enum kclass c);
/* The class named s; -1 when there is none. */
int kclass_lookup(const char *s);

struct kclass_rules;

/* Parse rules from text[0..len); label names it in errors (HR_INPUT with
 * the line number: unknown class, bad regular expression, ...). */
int kclass_parse(const char *text, size_t len, const char *label,
		 struct kclass_rules **out, struct hr_err *e);
/* Read and parse the file at path. */
int kclass_load(const char *path, struct kclass_rules **out,
		struct hr_err *e);
void kclass_free(struct kclass_rules *r);

/* The class of an activity: kind is "kernel", "memcpy" or "memset". */
enum kclass kclass_of(const struct kclass_rules *r, const char *kind,
		      const char *name);

/* The class of the first rule matching name, -1 when none does (for
 * mapping files in the same format whose unmatched entries count as
 * unmapped, e.g. problem names -> classes). */
int kclass_match(const struct kclass_rules *r, const char *name);

/* 1 when a generated kernel may replace kernels of class c (the file's
 * "@not-addressable" line lists the classes that may not). */
int kclass_addressable(const struct kclass_rules *r, enum kclass c);

#endif
