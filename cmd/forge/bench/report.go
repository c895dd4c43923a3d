package bench

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// writeTable prints one row per point, target and ceiling rows together:
// names left-aligned, numbers right-aligned.
func writeTable(w io.Writer, r *results) {
	ew, tw := len("endpoint"), len("ceiling")
	for _, p := range r.Points {
		ew, tw = max(ew, len(p.Endpoint)), max(tw, len(p.Target))
	}
	row := func(endpoint, c, target, rps, p50, p99, errs, mem, ratio string) {
		fmt.Fprintf(w, "%-*s %5s  %-*s %10s %9s %9s %7s %8s %6s\n", ew, endpoint, c, tw, target, rps, p50, p99, errs, mem, ratio)
	}
	row("endpoint", "c", "target", "req/s", "p50 ms", "p99 ms", "errors", "RSS MiB", "ratio")
	for _, p := range r.Points {
		mem, ratio := "-", "-"
		if p.RSSBytes > 0 {
			mem = fmt.Sprintf("%.1f", float64(p.RSSBytes)/(1<<20))
		}
		if p.Ratio > 0 {
			ratio = fmt.Sprintf("%.2f", p.Ratio)
		}
		row(p.Endpoint, strconv.Itoa(p.Concurrency), p.Target, fmt.Sprintf("%.1f", p.RPS),
			fmt.Sprintf("%.2f", p.P50Ms), fmt.Sprintf("%.2f", p.P99Ms), strconv.FormatUint(p.Errors, 10), mem, ratio)
	}
}

// writeFiles writes bench.json, bench.png and bench.svg into dir.
func writeFiles(dir string, r *results) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	j, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "bench.json"), append(j, '\n'), 0o644); err != nil {
		return err
	}
	plots, rows, cols, err := throughputPlots(r)
	if err != nil {
		return err
	}
	w, h := vg.Length(cols)*9*vg.Centimeter, vg.Length(rows)*7*vg.Centimeter
	img := vgimg.New(w, h)
	drawTiles(img, plots, rows, cols)
	if err := writeTo(filepath.Join(dir, "bench.png"), vgimg.PngCanvas{Canvas: img}); err != nil {
		return err
	}
	svg := vgsvg.New(w, h)
	drawTiles(svg, plots, rows, cols)
	return writeTo(filepath.Join(dir, "bench.svg"), svg)
}

// throughputPlots is one plot per endpoint: req/s against concurrency, a
// line per target (the server and the ceiling). Both axes are logarithmic:
// concurrencies are usually powers of two, and the ceiling is often ten or
// a hundred times the server, which a linear axis would flatten to zero.
func throughputPlots(r *results) ([][]*plot.Plot, int, int, error) {
	var names []string
	var concs []float64
	series := map[string]map[string]plotter.XYs{} // endpoint → target → points
	for _, p := range r.Points {
		if series[p.Endpoint] == nil {
			series[p.Endpoint] = map[string]plotter.XYs{}
			names = append(names, p.Endpoint)
		}
		// A point with no successful request has no place on a log axis.
		if p.RPS > 0 {
			series[p.Endpoint][p.Target] = append(series[p.Endpoint][p.Target], plotter.XY{X: float64(p.Concurrency), Y: p.RPS})
		}
		if c := float64(p.Concurrency); !slices.Contains(concs, c) {
			concs = append(concs, c)
		}
	}
	slices.Sort(concs)
	var ticks []plot.Tick
	for _, c := range concs {
		ticks = append(ticks, plot.Tick{Value: c, Label: strconv.FormatFloat(c, 'f', -1, 64)})
	}
	cols := min(3, len(names))
	rows := (len(names) + cols - 1) / cols
	plots := make([][]*plot.Plot, rows)
	for i := range plots {
		plots[i] = make([]*plot.Plot, cols)
	}
	for i, name := range names {
		p := plot.New()
		p.Title.Text = name
		p.X.Label.Text = "concurrency"
		p.Y.Label.Text = "req/s"
		p.X.Scale, p.X.Tick.Marker = plot.LogScale{}, plot.ConstantTicks(ticks)
		p.X.Min, p.X.Max = concs[0]/1.5, concs[len(concs)-1]*1.5
		p.Y.Scale, p.Y.Tick.Marker = plot.LogScale{}, plot.LogTicks{Prec: -1}
		lo, hi := math.Inf(1), 0.0
		for k, target := range []string{r.Target, "ceiling"} {
			xys := series[name][target]
			if len(xys) == 0 {
				continue
			}
			line, dots, err := plotter.NewLinePoints(xys)
			if err != nil {
				return nil, 0, 0, err
			}
			line.Color, dots.Color, dots.Shape = plotutil.Color(k), plotutil.Color(k), plotutil.Shape(k)
			p.Add(line, dots)
			p.Legend.Add(target, line, dots)
			for _, xy := range xys {
				lo, hi = min(lo, xy.Y), max(hi, xy.Y)
			}
		}
		if hi > 0 {
			// Room above the lines for the legend, and a decade below.
			p.Y.Min, p.Y.Max = lo/10, hi*20
		} else {
			p.Y.Min, p.Y.Max = 1, 10
		}
		p.Title.Padding = 3 * vg.Millimeter // keeps the legend clear of the title
		p.Legend.Top, p.Legend.Left = true, true
		p.Add(plotter.NewGrid())
		plots[i/cols][i%cols] = p
	}
	return plots, rows, cols, nil
}

func drawTiles(c vg.CanvasSizer, plots [][]*plot.Plot, rows, cols int) {
	dc := draw.New(c)
	tiles := draw.Tiles{Rows: rows, Cols: cols, PadX: vg.Millimeter * 4, PadY: vg.Millimeter * 4,
		PadTop: vg.Millimeter * 2, PadBottom: vg.Millimeter * 2, PadLeft: vg.Millimeter * 2, PadRight: vg.Millimeter * 2}
	canvases := plot.Align(plots, tiles, dc)
	for i := range plots {
		for j, p := range plots[i] {
			if p != nil {
				p.Draw(canvases[i][j])
			}
		}
	}
}

func writeTo(path string, w io.WriterTo) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := w.WriteTo(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
