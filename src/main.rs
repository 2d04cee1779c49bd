fn main() {
    eprintln!("cpuprof-tui: not wired up yet");
    std::process::exit(2);
}
