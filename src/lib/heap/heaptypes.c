/*
 * heaptypes.c - the rows of the heap-by-type histogram (heapwalk.c):
 * shapes, made on first use, and types named from abi.Type.Str in the
 * module's types section (no DWARF).
 *
 * Go 1.19-1.27 internal/abi/type.go (Type.Str, TFlagExtraStar, Name's
 * encoding: a flag byte, a uvarint length, the bytes), runtime/type.go
 * (resolveNameOff).  A type pointer outside the module's types section is
 * never dereferenced as a name.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "heapwalk.h"

/* abi.TFlagExtraStar */
#define GH_TFLAG_EXTRASTAR 2

static uint64_t shape_key(unsigned kind, uint32_t size, uint64_t mask)
{
	uint64_t k[3] = { kind, size, mask };

	/* never an aligned address: typed entries are keyed by theirs */
	return gh_fnv1a(k, sizeof(k)) | 1;
}

static char *shape_name(unsigned kind, uint32_t size, uint64_t mask)
{
	gh_buf b = GH_BUF_INIT;
	unsigned i, words = size / 8;
	size_t len;

	switch (kind) {
	case GH_TK_NOSCAN:
		gh_buf_printf(&b, "noscan %u B", size);
		break;
	case GH_TK_SCAN:
		gh_buf_printf(&b, "scan %u B", size);
		break;
	case GH_TK_PTRS:
		gh_buf_printf(&b, "ptrs %u B 0b", size);
		for (i = 0; i < words && i < 64; i++)
			gh_buf_putc(&b, (mask >> i) & 1 ? '1' : '0');
		break;
	case GH_TK_HDRLESS:
		gh_buf_printf(&b, "ptrs %u B (no header yet)", size);
		break;
	case GH_TK_LARGE_NOSCAN:
		gh_buf_printf(&b, "noscan large");
		break;
	case GH_TK_LARGE_PTRS:
		gh_buf_printf(&b, "ptrs large (no largeType)");
		break;
	case GH_TK_FOREIGN:
		if (size != 0)
			gh_buf_printf(&b, "ptrs %u B (implausible header)",
				      size);
		else
			gh_buf_printf(&b, "ptrs large (implausible "
				      "largeType)");
		break;
	default:
		gh_buf_printf(&b, "?");
		break;
	}
	gh_buf_putc(&b, '\0');
	if (b.oom) {
		gh_buf_free(&b);
		return NULL;
	}
	return (char *)gh_buf_detach(&b, &len);
}

static gh_tentry *entry_new(gh_types *t, uint64_t key)
{
	gh_tentry *e;

	if (gh_grow(&t->e, &t->cap, t->n + 1, sizeof(*t->e)) != 0 ||
	    gh_hmap_put(&t->idx, key, t->n + 1) != 0)
		return NULL;
	e = &t->e[t->n++];
	memset(e, 0, sizeof(*e));
	return e;
}

gh_tentry *gh_types_shape(gh_types *t, unsigned kind, uint32_t size,
			  uint64_t mask)
{
	uint64_t key, v;
	size_t it;
	gh_tentry *e;

	/* the last shape asked for (a span's slots are one size class,
	 * mostly one shape): no hash */
	if (t->last_shape != 0 && t->last_shape <= t->n) {
		e = &t->e[t->last_shape - 1];
		if (e->type == 0 && e->kind == kind && e->size == size &&
		    e->mask == mask)
			return e;
	}
	key = shape_key(kind, size, mask);
	for (v = gh_hmap_first(&t->idx, key, &it); v != 0;
	     v = gh_hmap_next(&t->idx, key, &it)) {
		e = &t->e[v - 1];
		if (e->type == 0 && e->kind == kind && e->size == size &&
		    e->mask == mask) {
			t->last_shape = v;
			return e;
		}
	}
	if (gh_grow(&t->e, &t->cap, t->n + 1, sizeof(*t->e)) != 0 ||
	    gh_hmap_add(&t->idx, key, t->n + 1) != 0)
		return NULL;
	e = &t->e[t->n++];
	memset(e, 0, sizeof(*e));
	t->last_shape = t->n;
	e->kind = (uint8_t)kind;
	e->size = size;
	e->mask = mask;
	e->name = shape_name(kind, size, mask);
	e->shape = e->name != NULL ? gh_strdup(e->name) : NULL;
	if (e->name == NULL || e->shape == NULL)
		return NULL;
	return e;
}

/*
 * The name of the type at addr: abi.Type.Str, a nameOff into the module's
 * types section (resolveNameOff), then abi.Name's encoding: a flag byte,
 * a uvarint length, the bytes; TFlagExtraStar drops the leading '*'.
 * NULL (not an error) when addr or its name lies outside the section.
 */
static char *type_name(gh_types *t, gh_mem *m, const gh_rtlayout *l,
		       uint64_t addr)
{
	unsigned char ty[64], hdr[5];
	uint64_t n = 0, at;
	int32_t str;
	unsigned i, shift = 0;
	char *name;
	size_t skip;

	if (t->types_lo == 0 || addr % 8 != 0 || addr < t->types_lo ||
	    addr >= t->types_hi || t->types_hi - addr < l->ty_str + 4 ||
	    l->ty_str + 4 > sizeof(ty))
		return NULL;
	if (gh_mem_read(m, addr, ty, l->ty_str + 4, "abi.Type") != 0)
		return NULL;
	str = (int32_t)gh_load(ty + l->ty_str, 4, m->big_endian);
	if (str <= 0 || (uint64_t)str >= t->types_hi - t->types_lo)
		return NULL;
	at = t->types_lo + (uint64_t)str;
	if (t->types_hi - at < 2 ||
	    gh_mem_read(m, at, hdr, t->types_hi - at < sizeof(hdr) ?
			(size_t)(t->types_hi - at) : sizeof(hdr),
			"type name") != 0)
		return NULL;
	for (i = 1; i < sizeof(hdr) && at + i < t->types_hi; i++) {
		n |= (uint64_t)(hdr[i] & 0x7f) << shift;
		shift += 7;
		if (!(hdr[i] & 0x80))
			break;
	}
	if (i == sizeof(hdr) || at + i >= t->types_hi ||
	    n > t->types_hi - (at + i + 1))
		return NULL;
	at += i + 1;
	if (n > GH_TYPES_MAX_NAME)
		n = GH_TYPES_MAX_NAME;
	name = malloc((size_t)n + 1);
	if (name == NULL)
		return NULL;
	if (gh_mem_read(m, at, name, (size_t)n, "type name") != 0) {
		free(name);
		return NULL;
	}
	name[n] = '\0';
	skip = (ty[l->ty_tflag] & GH_TFLAG_EXTRASTAR) && n > 0 &&
	       name[0] == '*';
	if (skip)
		memmove(name, name + 1, (size_t)n);
	if (strlen(name) != (size_t)n - skip) {   /* a NUL inside: damaged */
		free(name);
		return NULL;
	}
	/* a control byte (a newline would split the line formats' rows):
	 * no Go type name has one, so the type data is damaged */
	for (i = 0; name[i] != '\0'; i++)
		if ((unsigned char)name[i] < 0x20 || name[i] == 0x7f) {
			free(name);
			return NULL;
		}
	return name;
}

gh_tentry *gh_types_typed(gh_types *t, gh_mem *m, const gh_rtlayout *l,
			  uint64_t addr, unsigned kind, uint32_t size)
{
	uint64_t v = addr % 8 == 0 ? gh_hmap_get(&t->idx, addr) : 0;
	gh_tentry *e;
	char buf[64], *name;

	if (v != 0)
		return &t->e[v - 1];
	/* no type starts there: a shape, never a row per junk word */
	if (addr % 8 != 0)
		goto foreign;
	name = type_name(t, m, l, addr);
	if (name == NULL && t->unnamed_types >= GH_TYPES_MAX_UNNAMED)
		goto foreign;
	e = entry_new(t, addr);
	if (e == NULL) {
		free(name);
		return NULL;
	}
	e->type = addr;
	e->kind = (uint8_t)kind;
	e->name = name;
	e->named = e->name != NULL;
	if (!e->named)
		t->unnamed_types++;
	if (e->name == NULL) {
		snprintf(buf, sizeof(buf), "type 0x%llx",
			 (unsigned long long)addr);
		e->name = gh_strdup(buf);
	}
	if (kind == GH_TK_LARGETYPE)
		e->shape = gh_strdup("ptrs large");
	else {
		snprintf(buf, sizeof(buf), "ptrs %u B", size);
		e->shape = gh_strdup(buf);
	}
	if (e->name == NULL || e->shape == NULL)
		return NULL;
	return e;
foreign:
	t->foreign++;
	return gh_types_shape(t, GH_TK_FOREIGN,
			      kind == GH_TK_LARGETYPE ? 0 : size, 0);
}

char *gh_types_name(gh_types *t, gh_mem *m, const gh_rtlayout *l,
		    uint64_t addr)
{
	return type_name(t, m, l, addr);
}

/* heapwalk.h: a histogram and its rows */
void gh_types_free(gh_types *t)
{
	size_t i;

	if (t == NULL)
		return;
	for (i = 0; i < t->n; i++) {
		free(t->e[i].name);
		free(t->e[i].shape);
	}
	free(t->e);
	gh_hmap_free(&t->idx);
	gh_buf_free(&t->objlines);
	free(t);
}
