package prof
import ("testing";"os";"context";"runtime/pprof";"edgechat/documents/extract")
func TestProf(t *testing.T){
	data,_ := os.ReadFile(os.Getenv("PDF"))
	f,_ := os.Create("/tmp/prof/cpu.out")
	pprof.StartCPUProfile(f)
	_, err := extract.Bytes(context.Background(), "x.pdf", data, nil)
	pprof.StopCPUProfile()
	if err != nil { t.Fatal(err) }
}
