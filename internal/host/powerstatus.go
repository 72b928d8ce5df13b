package host

// systemPowerStatus is Windows' SYSTEM_POWER_STATUS, as GetSystemPowerStatus fills it.
type systemPowerStatus struct {
	ACLineStatus        byte // 0 offline (on battery), 1 online, 255 unknown
	BatteryFlag         byte // 128: no system battery; 255: unknown
	BatteryLifePercent  byte // 0–100, 255 unknown
	SystemStatusFlag    byte // 1: battery saver (energy saver) on
	BatteryLifeTime     uint32
	BatteryFullLifeTime uint32
}

// powerFromStatus reads a SYSTEM_POWER_STATUS.
func powerFromStatus(s systemPowerStatus) Power {
	p := Power{Percent: -1}
	switch s.ACLineStatus {
	case 0:
		p.Known, p.OnBattery = true, true
	case 1:
		p.Known = true
	}
	if s.SystemStatusFlag == 1 {
		p.Known, p.Saver = true, true
	}
	if s.BatteryLifePercent <= 100 && s.BatteryFlag != 128 && s.BatteryFlag != 255 {
		p.Percent = int(s.BatteryLifePercent)
	}
	return p
}
