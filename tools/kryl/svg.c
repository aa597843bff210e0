/* SVG primitives: the few elements kryl's pictures are made of. */
#include "svg.h"

void svg_begin(FILE *f, int width, int height)
{
    fprintf(f,
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
            "viewBox=\"0 0 %d %d\" font-family=\"sans-serif\">\n"
            "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n",
            width, height, width, height);
}

void svg_end(FILE *f) { fprintf(f, "</svg>\n"); }

void svg_line(FILE *f, double x0, double y0, double x1, double y1, const char *stroke, double width)
{
    fprintf(f,
            "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" stroke=\"%s\" "
            "stroke-width=\"%.2f\"/>\n",
            x0, y0, x1, y1, stroke, width);
}

void svg_path_begin(FILE *f, const char *fill, double opacity)
{
    fprintf(f, "<path fill=\"%s\" fill-opacity=\"%.3g\" d=\"", fill, opacity);
}

void svg_path_rect(FILE *f, double x, double y, double width, double height)
{
    fprintf(f, "M%.5g %.5gh%.5gv%.5gh%.5gz", x, y, width, height, -width);
}

void svg_path_end(FILE *f) { fprintf(f, "\"/>\n"); }

void svg_rect_outline(FILE *f, double x, double y, double width, double height, const char *stroke)
{
    fprintf(f,
            "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"none\" "
            "stroke=\"%s\" stroke-width=\"1\"/>\n",
            x, y, width, height, stroke);
}

void svg_text(FILE *f, double x, double y, const char *anchor, int size, const char *text)
{
    fprintf(f, "<text x=\"%.2f\" y=\"%.2f\" text-anchor=\"%s\" font-size=\"%d\">", x, y, anchor,
            size);
    for (const char *c = text; *c; c++) {
        switch (*c) {
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '&': fputs("&amp;", f); break;
        case '"': fputs("&quot;", f); break;
        default: fputc(*c, f);
        }
    }
    fprintf(f, "</text>\n");
}

const char *svg_color(int n)
{
    /* Okabe-Ito: told apart by color-blind readers too */
    static const char *palette[] = {"#0072B2", "#D55E00", "#009E73", "#CC79A7",
                                    "#E69F00", "#56B4E9", "#000000", "#F0E442"};
    return palette[n % 8];
}
