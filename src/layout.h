/*
 * layout.h - what the renderers need of a layout (layout.c) beyond the
 * public API.
 */
#ifndef AF_LAYOUT_H
#define AF_LAYOUT_H

#include "internal.h"

/** The allocator a layout's blocks came from (its tree's). */
af_mem *af_layout_mem(const af_layout *layout);

#endif
