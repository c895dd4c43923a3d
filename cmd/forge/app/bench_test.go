package app_test

import (
	"io"
	"net"
	"net/http"
	"testing"

	usersv1 "forge/gen/forge/users/v1"
)

// Round trips of the hottest authenticated call, on SQLite, over real
// loopback connections with keep-alive, from parallel clients:
//
//	go test -run '^$' -bench RoundTrip -benchmem ./cmd/forge/app/
//
// BenchmarkRoundTripBareHTTP is the ceiling: a net/http handler that
// returns the same bytes without doing anything.

func benchClient() *http.Client {
	return &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
}

func benchGet(b *testing.B, c *http.Client, url, token string) {
	b.SetParallelism(8) // 16 concurrent clients on 2 cores, like a load run
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			req, _ := http.NewRequest("GET", url, nil)
			if token != "" {
				req.Header.Set("Authorization", "token "+token)
			}
			resp, err := c.Do(req)
			if err != nil {
				b.Fatal(err)
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 200 {
				b.Fatalf("status %d", resp.StatusCode)
			}
		}
	})
}

func BenchmarkRoundTripRESTGetUser(b *testing.B) {
	s := startServer(b, "sqlite3", nil)
	benchGet(b, benchClient(), s.URL+"/api/v1/user", s.AdminToken)
}

func BenchmarkRoundTripRESTGetUserPostgres(b *testing.B) {
	s := startServer(b, "postgres", nil)
	benchGet(b, benchClient(), s.URL+"/api/v1/user", s.AdminToken)
}

func BenchmarkRoundTripGRPCGetUser(b *testing.B) {
	s := startServer(b, "sqlite3", nil)
	c := usersv1.NewUserServiceClient(s.grpcConn())
	ctx := withToken(b.Context(), s.AdminToken)
	b.SetParallelism(8)
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := c.GetAuthenticatedUser(ctx, &usersv1.GetAuthenticatedUserRequest{}); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func BenchmarkRoundTripBareHTTP(b *testing.B) {
	s := startServer(b, "sqlite3", nil)
	body := s.do("GET", "/api/v1/user", "", "Authorization", "token "+s.AdminToken).Body
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json;charset=utf-8")
		w.Write(body)
	})}
	go srv.Serve(ln)
	defer srv.Close()
	benchGet(b, benchClient(), "http://"+ln.Addr().String()+"/api/v1/user", "")
}
