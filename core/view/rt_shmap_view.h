/*
 * rt_shmap_view.h - what SHMAP's animation shows, kept in C while a simulation
 * runs (rt_shmap_sim.h), so that animating costs little more than simulating.
 *
 * The view observes the simulation (rt_shmap_sim_observe) and keeps, for the
 * panels asked for and nothing else:
 *   - memory: per matrix a load grid and a store grid, one cell per k x k
 *     elements (k = 1 unless the matrices do not fit the canvas even at one
 *     pixel per element), laid out by rt_shmap_regions;
 *   - cache: per cache a grid of its words, the word w of the line in way k of
 *     set s in cell (s*W + k)*L + w, the grid lines_per_row lines wide;
 *   - active: the active PEs and the time of the last steps (a ring);
 *   - refs: the references histogram, one grid row per histogram row: element
 *     e of E (row-major, matrices in ID order) is on row floor(e*R/E) of R
 *     (computed in double; exactly e when R = E); a row's dots are as many as
 *     the largest reference count among its elements, dot j in the colour of
 *     the access that first brought one of them to j+1 references;
 *   - timeline: per histogram row and time column the last accessing PE.
 * A memory or cache cell holds PE*(K+1)+shade (shade 0 = full brightness, K =
 * the darkest) or -1 (empty); refs and timeline cells hold PE*(K+1).
 *
 * Rules (exact):
 *   - The clock T is the largest load / store stamp seen so far. Before a load
 *     or store event is applied, T takes its stamp, then every lit cell whose
 *     last fade is at least F before T (T - last >= F) moves one shade darker
 *     (past K it becomes empty) and its last fade becomes T. Lighting a cell
 *     sets its last fade to T. Flops and messages fade nothing.
 *   - Cache off, or a store under write-through: each element of the block
 *     lights its cell of the load or store grid. Cache on, a load: a hit lights
 *     the word's cache cell; a miss lights the line's L cache cells and, on the
 *     load grid, every word of the line that lies in a matrix. Under write-back
 *     a store lights its store cell and its word's cache cell.
 *   - A flash is the lighting of a cell still at shade 0 from an earlier load or
 *     store event (the words of a line a miss has just lit, or several elements
 *     sharing a cell, do not flash within their own event); it is counted and
 *     the cell is listed (once) among the current frame's flashes.
 *   - A step's time is the largest stamp among its loads and stores; a step
 *     without one keeps the previous step's time (0 before any).
 *
 * Bounds: lighting a cell costs O(1); fading is folded in when the grids are
 * read (and every 65536 load / store events, or ncells / 4 when larger, to
 * keep the record of event clocks bounded): a cell's fades since it was last folded follow
 * from those clocks by binary search. All state is proportional to the cells
 * drawn: the memory grids to the canvas (or, with no canvas, at most max_cells
 * cells per canvas, k growing to keep within it), the refs grid to rows x len,
 * the timeline to its size.
 */
#ifndef RT_SHMAP_VIEW_H
#define RT_SHMAP_VIEW_H

#include <stdint.h>

#include "rt_grid.h"
#include "rt_shmap_sim.h"

/* ---- layout of the memory canvases (pure) ---------------------------------- */

typedef struct rt_shmap_region {
    int x, y, w, h;         /* pixels, relative to the canvas */
    int cw, ch;             /* cells: ceil(cols / k) x ceil(rows / k) */
    int row;                /* row of regions it is in */
    int shown;              /* 0 when it does not fit even at one pixel per cell */
} rt_shmap_region;

typedef struct rt_shmap_layout_info {
    int f;                  /* pixels per cell side */
    int k;                  /* elements per cell side (> 1: k x k elements share a cell) */
    int rows;               /* rows of regions */
    int hidden;             /* regions not shown */
} rt_shmap_layout_info;

/*
 * Lay n matrices (rows[i] x cols[i], in ID order) out on a W x H canvas: regions
 * left to right in ID order, a new row of regions when the next does not fit;
 * uniform square cells of f pixels, f the largest integer for which every row
 * of regions fits with at least `gap` pixels between regions and at the edges,
 * and the rows too. Each row's spare width is split into n+1 equal gaps (region
 * i of the row at x = floor((i+1)*spare/(n+1)) + the widths before it), the
 * spare height likewise between the rows, each region centred vertically in its
 * row (floor). When f = 1 does not fit, k x k elements share a cell: k is the
 * smallest k >= 2 for which f = 1 fits. When even one cell per matrix does not
 * fit, regions are placed in order while they fit and the rest are hidden.
 * out has n entries. Returns RT_OK, or RT_EINVAL for n < 1 or a size < 1.
 */
int rt_shmap_regions(int n, const int *rows, const int *cols, int W, int H, int gap,
                     rt_shmap_region *out, rt_shmap_layout_info *info);

/* ---- layout of the cache window (pure) -------------------------------------- */

typedef struct rt_shmap_cache_layout {
    int per_row;            /* lines per row of a region */
    int rows;               /* rows of a region: ceil(lines / per_row) */
    double cell;            /* pixels per word (< 1 only when nothing fits at 1) */
    double w, h;            /* the window */
    double region_w, region_h;
    double x0, gap;         /* region i at x = x0 + i*(region_w + gap), y = gap */
} rt_shmap_cache_layout;

/*
 * ncaches caches of `words` words in lines of `line` words, one region per
 * cache in one row, regions gap pixels apart and from the edges, at most W x H:
 * for every per_row in 1..lines the largest integer cell size that fits; the
 * per_row with the largest cell wins, ties going to the window whose w/h is
 * closest to aspect (|log ratio|), then to the smaller per_row. When no cell of
 * one pixel fits, the cell is the largest fraction that fits. RT_EINVAL on bad
 * arguments.
 */
int rt_shmap_cache_layout_of(int ncaches, uint64_t words, uint64_t line, int W, int H, int gap,
                             double aspect, rt_shmap_cache_layout *out);

/* ---- the view --------------------------------------------------------------- */

typedef struct rt_shmap_view_config {
    int shades;             /* K, 0..64 */
    double fade;            /* F > 0, trace time */
    /* memory: 0 off; canvas W x H (0 x 0: no canvas, one cell per element up to max_cells) */
    int memory, mem_w, mem_h, mem_gap;
    uint64_t max_cells;     /* cells per memory canvas with no canvas (0: 1 << 22) */
    /* cache: 0 off; lines per row of a cache grid (0: from cache_w x cache_h and aspect) */
    int cache, cache_per_row, cache_w, cache_h, cache_gap;
    double cache_aspect;
    /* active: 0 off; steps kept */
    int active, active_keep;
    /* refs: 0 off; histogram rows (0: one per element, at most 65536) and dots per row */
    int refs, refs_rows, refs_len;
    /* timeline: 0 off; columns and rows (rows 0: as refs would) */
    int timeline, time_w, time_h;
    /* load / store events recorded before their fades are folded in (0: the
     * default, the larger of 65536 and cells / 4); small values exercise it */
    uint64_t fold_every;
} rt_shmap_view_config;

/* Defaults: K = 4, F = 1, everything off. */
rt_shmap_view_config rt_shmap_view_defaults(void);

typedef struct rt_shmap_view rt_shmap_view;

/*
 * A view observing sim from now on (best made before the first step). The
 * simulation must outlive the view or be freed after rt_shmap_view_free; the
 * view unobserves it when freed. NULL with err filled on a bad configuration
 * (RT_ERANGE naming the field) or no memory.
 */
rt_shmap_view *rt_shmap_view_new(rt_shmap_sim *sim, const rt_shmap_view_config *cfg, rt_err *err);
void rt_shmap_view_free(rt_shmap_view *v);

/* Stop observing (the simulation is going away); the state stays readable. */
void rt_shmap_view_detach(rt_shmap_view *v);

const rt_shmap_view_config *rt_shmap_view_config_get(const rt_shmap_view *v);

/*
 * Bring the memory, cache and time-line grids and the lit count up to date:
 * the view folds the fades of the events since the last call into the cells,
 * and copies the memory and time-line cells, kept column by column while it
 * runs (the order loads and stores walk a matrix), into the row-major grids.
 * Call it before reading or drawing those grids (the refs grids are always up
 * to date).
 */
void rt_shmap_view_sync(rt_shmap_view *v);

/* Memory: the layout, and the load / store grid of matrix i (NULL when off or hidden). */
const rt_shmap_layout_info *rt_shmap_view_layout(const rt_shmap_view *v);
const rt_shmap_region *rt_shmap_view_region(const rt_shmap_view *v, int i);
rt_grid *rt_shmap_view_grid(const rt_shmap_view *v, int i, int store);

/* Cache grid of cache i (NULL when off) and the cache layout (NULL when off). */
rt_grid *rt_shmap_view_cache_grid(const rt_shmap_view *v, int i);
const rt_shmap_cache_layout *rt_shmap_view_cache_layout(const rt_shmap_view *v);

/* References histogram (w = dots per row, h = rows), its overflow column (1 x rows,
 * 0 on rows with more references than dots), the dots each row holds (the largest
 * reference count among its elements), the element -> row map, overflowed dots. */
rt_grid *rt_shmap_view_refs(const rt_shmap_view *v);
rt_grid *rt_shmap_view_refs_overflow(const rt_shmap_view *v);
uint64_t rt_shmap_view_refs_count(const rt_shmap_view *v, int row);
int rt_shmap_view_refs_row(const rt_shmap_view *v, int matrix, int r, int c);
uint64_t rt_shmap_view_refs_overflowed(const rt_shmap_view *v);
/* Elements in all matrices (rows of the histogram when it has one per element). */
uint64_t rt_shmap_view_elements(const rt_shmap_view *v);

/* Time-line grid (NULL when off). */
rt_grid *rt_shmap_view_timeline(const rt_shmap_view *v);

/* Steps seen, the step time, the clock T. */
uint64_t rt_shmap_view_step(const rt_shmap_view *v);
double rt_shmap_view_time(const rt_shmap_view *v);
double rt_shmap_view_clock(const rt_shmap_view *v);

/* Active PEs of the last step: fills pes (room for 256), returns their number. */
int rt_shmap_view_active(const rt_shmap_view *v, int *pes);

/* Kept steps of the active graph, oldest first (i < n): time and PE bitmap (4 words). */
int rt_shmap_view_active_kept(const rt_shmap_view *v);
double rt_shmap_view_active_at(const rt_shmap_view *v, int i, const uint64_t **mask);

/*
 * Rectangles of the active graph for steps with time in [t0, t1] into p (cleared;
 * stride >= 5): x = x0 + (time - t0)/(t1 - t0)*w; in each device pixel column
 * (floor x) the step with the most active PEs stands for the column, its bar
 * reaching to the next column's bar (at least min_w wide); one unit of
 * h/max_pes per active PE stacked from y0 + h upwards, lowest PE at the
 * bottom, the fifth field PE*(K+1).
 */
int rt_shmap_view_active_rects(const rt_shmap_view *v, rt_pack *p, double t0, double t1,
                               double x0, double y0, double w, double h, int max_pes,
                               double min_w);

/* Flashes: counted since the start, and those of the current frame. */
uint64_t rt_shmap_view_flashes(const rt_shmap_view *v);
uint64_t rt_shmap_view_frame_flashes(const rt_shmap_view *v);

/*
 * Rectangles (x, y, w, h) of the current frame's flashed cells on canvas `which`
 * (0 load, 1 store, 2 cache window) into p (cleared; stride >= 4), in pixels
 * relative to that canvas, from the layouts, each shrunk by inset on every side
 * (0.5 for a one-pixel outline drawn inside the cell).
 */
int rt_shmap_view_flash_rects(const rt_shmap_view *v, int which, double inset, rt_pack *p);

/* Start a new frame: the frame's flashes are forgotten. */
void rt_shmap_view_new_frame(rt_shmap_view *v);

/* Lit cells (as of the last rt_shmap_view_sync) and bytes held. */
uint64_t rt_shmap_view_lit(const rt_shmap_view *v);
uint64_t rt_shmap_view_bytes(const rt_shmap_view *v);

/* First error met while observing (no memory growing a structure), RT_OK if none. */
int rt_shmap_view_status(const rt_shmap_view *v);

#endif
