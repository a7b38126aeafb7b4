package org.apache.flink.table.types;
import java.util.*;
public final class FieldsDataType extends DataType { private static final long serialVersionUID = 1L;
  private final List<DataType> fieldDataTypes;
  public FieldsDataType(org.apache.flink.table.types.logical.LogicalType t, Class<?> c, List<DataType> f) { super(t, c); fieldDataTypes = Collections.unmodifiableList(new ArrayList<>(f)); } }
