#[path = "../tests/common/campaign.rs"]
mod campaign;
fn main() {
    let dir = std::path::PathBuf::from("/tmp/arch");
    let _ = std::fs::remove_dir_all(&dir);
    let (svc, _) = campaign::play(
        &dir.join("game"),
        "khartoum",
        "k2",
        dervish::store::Mode::Monthly,
        40,
    );
    svc.archive("k2", &dir.join("site")).unwrap();
    let (svc, _) = campaign::play(
        &dir.join("game1"),
        "el-obeid",
        "k1",
        dervish::store::Mode::Monthly,
        40,
    );
    svc.archive("k1", &dir.join("site")).unwrap();
}
