/*
 * upload.c - POST bodies: a trace (POST /upload) or a mapping beside one
 * (POST /trace/<hash>/mapping), as the raw body or a multipart form
 * (libmicrohttpd's parser).  The bytes stream to a temporary file while
 * they are hashed; past --max-upload nothing more is kept and the answer
 * is a 413 (a body already on its way is read and dropped first, up to
 * twice the limit, so that the client sees the answer); the token, when
 * the server wants one, from a header or the form.  A whole body is
 * handed to a render worker (work.c).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "server.h"

static int token_ok(const server *sv, const char *given)
{
	const char *want = sv->cfg.token;
	size_t i, n, m;
	unsigned char diff = 0;

	if (!want)
		return 1;
	if (!given)
		return 0;
	n = strlen(want);
	m = strlen(given);
	for (i = 0; i < n; i++)
		diff |= (unsigned char)(want[i] ^ (i < m ? given[i] : 0));
	return diff == 0 && n == m;
}

static const char *header_token(struct MHD_Connection *conn)
{
	const char *a = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Authorization");

	if (a && strncasecmp(a, "Bearer ", 7) == 0)
		return a + 7;
	return MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "X-Upload-Token");
}

static int over_limit(req *r, size_t more)
{
	if (r->got + more > r->sv->cfg.max_upload) {
		r->too_big = 1;
		if (r->fd >= 0) {
			close(r->fd);
			r->fd = -1;
			unlink(r->tmp);
		}
		if (r->tmp2[0])
			unlink(r->tmp2);
		return 1;
	}
	return 0;
}

static int take(req *r, const char *data, size_t size)
{
	const char *p = data;
	size_t left = size;

	if (r->too_big || r->bad || r->fd < 0)
		return 0;
	if (over_limit(r, size))
		return 0;
	hasher_add(r->h, data, size);
	r->part_got += size;
	while (left) {
		ssize_t w = write(r->fd, p, left);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			r->bad = 500;
			snprintf(r->badmsg, sizeof r->badmsg, "cannot store the upload: %s",
			         strerror(errno));
			return -1;
		}
		p += w;
		left -= (size_t)w;
	}
	r->got += size;
	return 0;
}

/* The first file of a form is whole and a second begins: the first is put
 * aside (r->tmp2, r->name2, its digest) and the second goes to a new
 * temporary file.  0, or -1 with r->bad set. */
static int second_file(req *r, const char *key, const char *filename)
{
	if (r->fd >= 0 && fsync(r->fd) != 0) {
		r->bad = 500;
		snprintf(r->badmsg, sizeof r->badmsg, "cannot store the upload: %s", strerror(errno));
		return -1;
	}
	if (r->fd >= 0)
		close(r->fd);
	r->fd = -1;
	hasher_end(r->h, r->digest2);
	r->h = NULL;
	memcpy(r->tmp2, r->tmp, sizeof r->tmp2);
	memcpy(r->name2, r->name, sizeof r->name2);
	r->files = 2;
	r->part_got = 0;
	snprintf(r->field, sizeof r->field, "%s", key ? key : "");
	safe_upload_name(r->name, sizeof r->name, filename);
	store_tmp_path(r->sv->st, "upload", r->tmp, sizeof r->tmp);
	r->fd = open(r->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (r->fd < 0 || !(r->h = hasher_new())) {
		r->bad = 500;
		snprintf(r->badmsg, sizeof r->badmsg, "cannot store the upload");
		return -1;
	}
	return 0;
}

/* What a half of a pair is, by its first bytes, else by its name: 'k' a
 * key, 'd' data, 0 neither. */
static int half_of(const char *path, const char *name)
{
	char head[9] = {0};
	size_t n = strlen(name);
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd >= 0) {
		if (read(fd, head, 8) < 0)
			head[0] = '\0';
		close(fd);
	}
	if (strncmp(head, "*version", 8) == 0)
		return 'k';
	if (memcmp(head, "SLOW", 4) == 0)
		return 'd';
	if (n > 4 && strcmp(name + n - 4, ".key") == 0)
		return 'k';
	if (n > 5 && strcmp(name + n - 5, ".data") == 0)
		return 'd';
	return 0;
}

/* Two files of a form, whole: named as the command finds a pair,
 * <base>.key beside <base>.data (r->tmp and r->name the key's, r->tmp2 and
 * r->name2 the data's), the digest of the pair in r->hash: SHA-256 of the
 * key's digest and the data's, whatever their order in the form. */
static void name_pair(req *r, const char *digest)
{
	char t[4096], base[128], hex[2 * SERVE_HASH_LEN + 1];
	char *dot;
	hasher *h;

	if (half_of(r->tmp, r->name) != 'k' && half_of(r->tmp2, r->name2) != 'd') {
		/* the key came first (or neither says: the form's order): swap */
		memcpy(t, r->tmp, sizeof t);
		memcpy(r->tmp, r->tmp2, sizeof r->tmp);
		memcpy(r->tmp2, t, sizeof r->tmp2);
		memcpy(base, r->name, sizeof base);
		memcpy(r->name, r->name2, sizeof r->name);
		memcpy(r->name2, base, sizeof r->name2);
		snprintf(hex, sizeof hex, "%s%s", r->digest2, digest);
	} else {
		snprintf(hex, sizeof hex, "%s%s", digest, r->digest2);
	}
	/* r->tmp is now the key's; hex is the key's digest, then the data's */
	snprintf(base, sizeof base, "%s", r->name);
	if ((dot = strrchr(base, '.')) != NULL && dot != base)
		*dot = '\0';
	snprintf(r->name, sizeof r->name, "%.100s.key", base);
	snprintf(r->name2, sizeof r->name2, "%.100s.data", base);
	r->pair = 1;
	if ((h = hasher_new()) != NULL) {
		hasher_add(h, "key+data\n", 9);
		hasher_add(h, hex, strlen(hex));
		hasher_end(h, r->hash);
	}
}

static enum MHD_Result form_part(void *cls, enum MHD_ValueKind kind, const char *key,
                                 const char *filename, const char *content_type,
                                 const char *transfer_encoding, const char *data,
                                 uint64_t off, size_t size)
{
	req *r = cls;

	(void)kind;
	(void)content_type;
	(void)transfer_encoding;
	if (key && strcmp(key, "token") == 0 && !filename) {
		size_t have = strlen(r->form_token);
		if (have + size < sizeof r->form_token) {
			memcpy(r->form_token + have, data, size);
			r->form_token[have + size] = '\0';
		}
		return MHD_YES;
	}
	if (!filename)
		return MHD_YES; /* other fields: ignored */
	/* a part begins at offset 0: another field's, or another file of the
	 * same field once this one has bytes */
	if (off == 0 && r->files &&
	    (strcmp(r->field, key ? key : "") != 0 || r->part_got > 0) && !r->bad && !r->too_big) {
		if (r->files == 2 || r->upload == U_MAPPING) {
			r->bad = 400;
			snprintf(r->badmsg, sizeof r->badmsg, r->upload == U_MAPPING
			         ? "one mapping file per upload"
			         : "at most two files per upload: a trace, or a key and data pair");
			return MHD_YES;
		}
		if (second_file(r, key, filename) != 0)
			return MHD_YES;
	}
	if (!r->files) {
		r->files = 1;
		snprintf(r->field, sizeof r->field, "%s", key ? key : "");
		safe_upload_name(r->name, sizeof r->name, filename);
	}
	if (size)
		take(r, data, size);
	return MHD_YES;
}

enum MHD_Result start_upload(req *r)
{
	server *sv = r->sv;
	const char *type = MHD_lookup_connection_value(r->conn, MHD_HEADER_KIND,
	                                               MHD_HTTP_HEADER_CONTENT_TYPE);
	const char *len = MHD_lookup_connection_value(r->conn, MHD_HEADER_KIND,
	                                              MHD_HTTP_HEADER_CONTENT_LENGTH);
	const char *tok = header_token(r->conn);
	int multipart = type && strncasecmp(type, "multipart/form-data", 19) == 0;

	r->kind = K_UPLOAD;
	if (sv->cfg.token && !multipart && !token_ok(sv, tok))
		return send_error(r, 401, "this server needs an upload token (Authorization: "
		                          "Bearer TOKEN)");
	if (len) {
		char *end;
		unsigned long long n;
		errno = 0;
		n = strtoull(len, &end, 10);
		if (errno == 0 && *end == '\0' && n > sv->cfg.max_upload) {
			const char *expect = MHD_lookup_connection_value(r->conn, MHD_HEADER_KIND,
			                                                 MHD_HTTP_HEADER_EXPECT);
			snprintf(r->badmsg, sizeof r->badmsg, "the upload is %llu bytes: this server "
			         "takes at most %llu", n, (unsigned long long)sv->cfg.max_upload);
			/*
			 * A client that waits for "100 Continue" has sent nothing yet: answer now.
			 * One that is already sending would see its connection reset if we
			 * answered and closed with its body unread, and lose the answer; so a
			 * body up to twice the limit is read and dropped first, and the answer
			 * comes after it.
			 */
			if ((expect && strcasecmp(expect, "100-continue") == 0) ||
			    n > 2 * (unsigned long long)sv->cfg.max_upload)
				return send_error(r, 413, r->badmsg);
			r->too_big = 1;
			return MHD_YES;
		}
	}
	safe_upload_name(r->name, sizeof r->name,
	                 MHD_lookup_connection_value(r->conn, MHD_GET_ARGUMENT_KIND, "name"));
	if (r->upload == U_MAPPING &&
	    !MHD_lookup_connection_value(r->conn, MHD_GET_ARGUMENT_KIND, "name"))
		snprintf(r->name, sizeof r->name, "mapping.txt");
	store_tmp_path(sv->st, "upload", r->tmp, sizeof r->tmp);
	r->fd = open(r->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (r->fd < 0)
		return send_error(r, 500, "cannot store the upload");
	if (!(r->h = hasher_new()))
		return send_error(r, 500, "out of memory");
	if (multipart &&
	    !(r->pp = MHD_create_post_processor(r->conn, 64 * 1024, form_part, r))) {
		/* gone before the answer: a client may look at once */
		close(r->fd);
		r->fd = -1;
		unlink(r->tmp);
		return send_error(r, 400, "malformed multipart/form-data (no boundary)");
	}
	return MHD_YES;
}

enum MHD_Result upload_more(req *r, const char *data, size_t n)
{
	if (r->too_big) {
		/* nothing kept; the connection is dropped past twice the limit */
		r->got += n;
		return r->got > 2 * r->sv->cfg.max_upload ? MHD_NO : MHD_YES;
	}
	if (r->pp) {
		if (!r->bad && MHD_post_process(r->pp, data, n) != MHD_YES) {
			r->bad = 400;
			snprintf(r->badmsg, sizeof r->badmsg, "malformed multipart/form-data");
		}
	} else {
		take(r, data, n);
	}
	if (r->too_big)
		r->got = 0;
	return MHD_YES;
}

enum MHD_Result finish_upload(req *r)
{
	if (r->too_big) {
		if (!r->badmsg[0])
			snprintf(r->badmsg, sizeof r->badmsg, "the upload is over %llu bytes, the "
			         "most this server takes", (unsigned long long)r->sv->cfg.max_upload);
		return send_error(r, 413, r->badmsg);
	}
	if (r->pp && MHD_destroy_post_processor(r->pp) != MHD_YES && !r->bad) {
		r->bad = 400;
		snprintf(r->badmsg, sizeof r->badmsg, "malformed multipart/form-data");
	}
	r->pp = NULL;
	if (r->fd >= 0) {
		if (fsync(r->fd) != 0 && !r->bad) {
			r->bad = 500;
			snprintf(r->badmsg, sizeof r->badmsg, "cannot store the upload: %s",
			         strerror(errno));
		}
		close(r->fd);
		r->fd = -1;
	}
	if (!r->bad && r->pp == NULL && r->files == 0 &&
	    MHD_lookup_connection_value(r->conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_TYPE) &&
	    strncasecmp(MHD_lookup_connection_value(r->conn, MHD_HEADER_KIND,
	                                            MHD_HTTP_HEADER_CONTENT_TYPE),
	                "multipart/form-data", 19) == 0) {
		r->bad = 400;
		snprintf(r->badmsg, sizeof r->badmsg, "the form holds no file");
	}
	if (!r->bad && r->sv->cfg.token && !token_ok(r->sv, header_token(r->conn)) &&
	    !token_ok(r->sv, r->form_token)) {
		r->bad = 401;
		snprintf(r->badmsg, sizeof r->badmsg, "this server needs an upload token");
	}
	if (!r->bad && r->got == 0) {
		r->bad = 400;
		snprintf(r->badmsg, sizeof r->badmsg, "the upload is empty");
	}
	if (r->bad) {
		unlink(r->tmp);
		if (r->tmp2[0])
			unlink(r->tmp2);
		return send_error(r, (unsigned)r->bad, r->badmsg);
	}
	if (r->files == 2) {
		char digest[SERVE_HASH_LEN + 1];
		hasher_end(r->h, digest);
		r->h = NULL;
		name_pair(r, digest);
		return submit(r);
	}
	hasher_end(r->h, r->upload == U_MAPPING ? r->before : r->hash);
	r->h = NULL;
	return submit(r);
}
