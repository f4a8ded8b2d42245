//! Compiles the files given as arguments and prints the package JSON (a development aid).

use warrant_ckf::{Options, SourceInput, compile};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let bytes: Vec<Vec<u8>> = args.iter().map(|a| std::fs::read(a).unwrap_or_default()).collect();
    let inputs: Vec<SourceInput<'_>> = args.iter().zip(&bytes).map(|(n, b)| SourceInput { name: n, bytes: b }).collect();
    match compile(&inputs, &Options::default()) {
        Ok(r) => {
            println!("{}", warrant_ckf::to_json(&r.package).unwrap_or_default());
            eprintln!("{}", serde_json::to_string_pretty(&r).unwrap_or_default());
        }
        Err(e) => eprintln!("error: {e}"),
    }
}
