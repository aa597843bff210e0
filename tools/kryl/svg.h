/* A few SVG primitives for kryl plot and kryl spy: no dependencies, the
 * picture is plain text any browser or converter renders. */
#ifndef KRYL_TOOL_SVG_H
#define KRYL_TOOL_SVG_H

#include <stdio.h>

/* The picture frame: width x height pixels, white background. */
void svg_begin(FILE *f, int width, int height);
void svg_end(FILE *f);

/* A line from (x0, y0) to (x1, y1); stroke "#rrggbb", width in pixels. */
void svg_line(FILE *f, double x0, double y0, double x1, double y1, const char *stroke,
              double width);

/* One filled path of many rectangles (one fill, one opacity in (0, 1]):
 * begin, a svg_path_rect per rectangle (top left (x, y)), end.  A few
 * bytes a rectangle, for pictures of many. */
void svg_path_begin(FILE *f, const char *fill, double opacity);
void svg_path_rect(FILE *f, double x, double y, double width, double height);
void svg_path_end(FILE *f);

/* The outline of a rectangle, top left (x, y), a one-pixel stroke. */
void svg_rect_outline(FILE *f, double x, double y, double width, double height, const char *stroke);

/* Text at (x, y); anchor "start", "middle" or "end"; escaped for XML. */
void svg_text(FILE *f, double x, double y, const char *anchor, int size, const char *text);

/* The n-th color of a palette for curves that must be told apart. */
const char *svg_color(int n);

#endif
