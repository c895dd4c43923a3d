package bench

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"text/tabwriter"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// writeTable prints one row per point, target and ceiling rows together.
func writeTable(w io.Writer, r *results) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "endpoint\tc\ttarget\treq/s\tp50 ms\tp99 ms\terrors\tRSS MiB\tratio\t")
	for _, p := range r.Points {
		mem, ratio := "-", "-"
		if p.RSSBytes > 0 {
			mem = fmt.Sprintf("%.1f", float64(p.RSSBytes)/(1<<20))
		}
		if p.Ratio > 0 {
			ratio = fmt.Sprintf("%.2f", p.Ratio)
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%.1f\t%.2f\t%.2f\t%d\t%s\t%s\t\n",
			p.Endpoint, p.Concurrency, p.Target, p.RPS, p.P50Ms, p.P99Ms, p.Errors, mem, ratio)
	}
	tw.Flush()
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
// line per target (the server and the ceiling).
func throughputPlots(r *results) ([][]*plot.Plot, int, int, error) {
	var names []string
	series := map[string]map[string]plotter.XYs{} // endpoint → target → points
	maxC := 1
	for _, p := range r.Points {
		if series[p.Endpoint] == nil {
			series[p.Endpoint] = map[string]plotter.XYs{}
			names = append(names, p.Endpoint)
		}
		series[p.Endpoint][p.Target] = append(series[p.Endpoint][p.Target], plotter.XY{X: float64(p.Concurrency), Y: p.RPS})
		maxC = max(maxC, p.Concurrency)
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
		p.X.Min, p.X.Max = 0, float64(maxC)*1.05
		p.Y.Min = 0
		for k, target := range []string{r.Target, "ceiling"} {
			xys, ok := series[name][target]
			if !ok {
				continue
			}
			line, dots, err := plotter.NewLinePoints(xys)
			if err != nil {
				return nil, 0, 0, err
			}
			line.Color = plotutil.Color(k)
			dots.Color = plotutil.Color(k)
			dots.Shape = plotutil.Shape(k)
			p.Add(line, dots)
			p.Legend.Add(target, line, dots)
		}
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
