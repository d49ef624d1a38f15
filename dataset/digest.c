/* digest.c - see digest.h. */
#include "digest.h"

#include <openssl/evp.h>
#include <stdlib.h>

struct hr_sha256 {
	EVP_MD_CTX *ctx;
	int failed;
};

static void to_hex(const unsigned char *md, unsigned n, char *out)
{
	static const char hex[] = "0123456789abcdef";

	for (unsigned i = 0; i < n; i++) {
		out[2 * i] = hex[md[i] >> 4];
		out[2 * i + 1] = hex[md[i] & 15];
	}
	out[2 * n] = '\0';
}

int hr_sha256_hex(const void *buf, size_t len, char out[HR_SHA256_HEX])
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned n = 0;

	out[0] = '\0';
	if (!EVP_Digest(buf, len, md, &n, EVP_sha256(), NULL))
		return -1;
	to_hex(md, n, out);
	return 0;
}

struct hr_sha256 *hr_sha256_new(void)
{
	struct hr_sha256 *h = calloc(1, sizeof(*h));

	if (!h)
		return NULL;
	h->ctx = EVP_MD_CTX_new();
	if (!h->ctx || !EVP_DigestInit_ex(h->ctx, EVP_sha256(), NULL))
		h->failed = 1;
	return h;
}

void hr_sha256_update(struct hr_sha256 *h, const void *buf, size_t len)
{
	if (!h->failed && !EVP_DigestUpdate(h->ctx, buf, len))
		h->failed = 1;
}

int hr_sha256_final(struct hr_sha256 *h, char out[HR_SHA256_HEX])
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned n = 0;
	int rc = -1;

	out[0] = '\0';
	if (!h->failed && EVP_DigestFinal_ex(h->ctx, md, &n)) {
		to_hex(md, n, out);
		rc = 0;
	}
	EVP_MD_CTX_free(h->ctx);
	free(h);
	return rc;
}
