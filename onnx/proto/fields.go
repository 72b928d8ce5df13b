package proto

// Field numbers of onnx.proto (and the data_location values) that this package and
// onnx/optimize read and write.
const (
	FieldModelIRVersion       = 1
	FieldModelProducer        = 2
	FieldModelProducerVersion = 3
	FieldModelGraph           = 7
	FieldModelOpset           = 8
	FieldModelMetadata        = 14

	FieldOpsetDomain  = 1
	FieldOpsetVersion = 2

	FieldGraphNode        = 1
	FieldGraphName        = 2
	FieldGraphInitializer = 5
	FieldGraphInput       = 11
	FieldGraphOutput      = 12

	FieldNodeInput  = 1
	FieldNodeOutput = 2
	FieldNodeName   = 3
	FieldNodeOpType = 4
	FieldNodeAttr   = 5
	FieldNodeDomain = 7

	FieldAttrName   = 1
	FieldAttrF      = 2
	FieldAttrI      = 3
	FieldAttrS      = 4
	FieldAttrT      = 5
	FieldAttrG      = 6
	FieldAttrFloats = 7
	FieldAttrInts   = 8
	FieldAttrType   = 20

	FieldTensorDims         = 1
	FieldTensorDataType     = 2
	FieldTensorName         = 8
	FieldTensorRaw          = 9
	FieldTensorExternal     = 13
	FieldTensorDataLocation = 14

	FieldValueName      = 1
	FieldValueType      = 2
	FieldTypeTensor     = 1
	FieldTensorElemType = 1
	FieldTensorShape    = 2
	FieldShapeDim       = 1
	FieldDimValue       = 1
	FieldDimParam       = 2
	FieldEntryKey       = 1
	FieldEntryValue     = 2
	LocationDefault     = 0
	LocationExternal    = 1
)
