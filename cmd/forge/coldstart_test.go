package main

import (
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"
)

// TestColdStart times `forge serve` on an empty data directory (SQLite,
// the default) from exec to the first 200 of /api/healthz, over several
// runs, and logs the median (run with -v to read it):
//
//	go test ./cmd/forge/ -run ColdStart -count=1 -v
//
// It asserts only that every run answers; the time is a measurement, the
// machine's load decides it. The process's CPU time up to that point is
// logged beside it.
func TestColdStart(t *testing.T) {
	bin := buildForge(t)
	const runs = 11
	var walls, cpus []time.Duration
	for range runs {
		dir := t.TempDir()
		port := strconv.Itoa(freePort(t))
		cmd := exec.Command(bin, "serve")
		cmd.Dir = dir
		cmd.Env = append(os.Environ(),
			"FORGE__SERVER__HTTP_PORT="+port,
			"FORGE__SERVER__GRPC_ADDR=127.0.0.1:"+strconv.Itoa(freePort(t)),
			"FORGE__SERVER__APP_DATA_PATH="+filepath.Join(dir, "data"),
			"FORGE__SECURITY__SECRET_KEY=cold-start-secret")
		url := "http://127.0.0.1:" + port + "/api/healthz"
		client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
		start := time.Now()
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		for {
			resp, err := client.Get(url)
			if err == nil {
				resp.Body.Close()
				if resp.StatusCode == 200 {
					break
				}
			}
			if time.Since(start) > 30*time.Second {
				cmd.Process.Kill()
				cmd.Wait()
				t.Fatalf("no 200 from %s after 30s", url)
			}
			time.Sleep(time.Millisecond)
		}
		wall := time.Since(start)
		cmd.Process.Kill()
		cmd.Wait()
		walls = append(walls, wall)
		cpus = append(cpus, cmd.ProcessState.UserTime()+cmd.ProcessState.SystemTime())
	}
	slices.Sort(walls)
	slices.Sort(cpus)
	t.Logf("cold start to first 200, median of %d: %v wall (min %v, max %v); forge CPU to then (median, killed after): %v",
		runs, walls[runs/2], walls[0], walls[runs-1], cpus[runs/2])
}
