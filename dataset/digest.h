/* digest.h - SHA-256 of byte strings, as lowercase hex (OpenSSL's libcrypto).
 *
 * Owns: the one way headroom names content (kernels, problem files, inputs).
 */
#ifndef HR_DIGEST_H
#define HR_DIGEST_H

#include <stddef.h>

#define HR_SHA256_HEX 65 /* 64 hex digits and the terminating NUL */

/* Write the SHA-256 of buf[0..len) as hex into out.  Returns 0, or -1 when
 * libcrypto fails (out is then the empty string). */
int hr_sha256_hex(const void *buf, size_t len, char out[HR_SHA256_HEX]);

/* Incremental form, for hashing a set of entries without concatenating. */
struct hr_sha256;
struct hr_sha256 *hr_sha256_new(void);
void hr_sha256_update(struct hr_sha256 *h, const void *buf, size_t len);
/* Finish, write hex into out and free h.  Returns 0 or -1. */
int hr_sha256_final(struct hr_sha256 *h, char out[HR_SHA256_HEX]);

#endif
