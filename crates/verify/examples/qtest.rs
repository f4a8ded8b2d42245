fn main() {
    for t in std::env::args().skip(1) {
        let a = warrant_verify::TextAnalysis::of(&t);
        println!("{t:?}");
        for n in &a.nums {
            println!("   {:?} value={} written={} surface={:?}", n.dimension, n.value, n.written, n.surface);
        }
        println!("   dates {:?} names {:?}", a.dates, a.names.iter().map(|n| n.joined()).collect::<Vec<_>>());
    }
}
