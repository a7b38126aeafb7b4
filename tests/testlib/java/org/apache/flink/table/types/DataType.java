package org.apache.flink.table.types;
import org.apache.flink.table.types.logical.LogicalType;
public abstract class DataType implements java.io.Serializable {
  private static final long serialVersionUID = 1L;
  protected final LogicalType logicalType; protected final Class<?> conversionClass;
  DataType(LogicalType t, Class<?> c) { logicalType = t; conversionClass = c; }
}
